package dev.inbox.internal.form.advisory;

import dev.inbox.internal.jdbc.Sql;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Where the advisory lock form keeps its locks: on the database's sessions ({@link ServerLocks}),
 * or in this process for a database that has none ({@link ProcessLocks}, SQLite). A key is the
 * text {@code <table>:<advisory_lock or id>}.
 */
interface AdvisoryLocks {
    /** Rows a claim may read past: those whose locks others hold (rows in work stay due in this form). */
    int SCAN_EXTRA = 256;

    /** The statements these locks run, prepared when the subscription opens. */
    List<Sql> statements();

    /**
     * Locks up to {@code limit} due rows at {@code now} for {@code session}: their ids and keys, in
     * claim order. The scan reads past {@code heldHere} rows more, the locks this process's sessions
     * hold: rows in work and acked rows waiting for their claim's last delivery stay due, and at
     * large batches they alone would fill the scan, which would find nothing while rows wait.
     */
    Map<Object, String> lockDue(Connection session, Instant now, int limit, int heldHere) throws SQLException;

    /** Releases {@code session}'s lock on {@code key}. */
    void unlock(Connection session, String key) throws SQLException;

    /**
     * Releases every lock of {@code session} before it goes back to its pool; {@code keys} are
     * those this process knows it holds.
     */
    void unlockAll(Connection session, Collection<String> keys) throws SQLException;
}
