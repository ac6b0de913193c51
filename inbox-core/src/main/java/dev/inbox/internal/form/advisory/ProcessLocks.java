package dev.inbox.internal.form.advisory;

import dev.inbox.internal.jdbc.ConnectionSource;
import dev.inbox.internal.jdbc.RowIds;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.AdvisoryStatements;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Advisory locks kept in this process, for a database that has none of its own (SQLite): every
 * broker of the process on one database shares them; other processes do not see them. A claim
 * reads candidates and takes the first whose lock is free.
 */
public final class ProcessLocks implements AdvisoryLocks {
    private static final Set<String> HELD = ConcurrentHashMap.newKeySet();

    private final Dialect dialect;
    private final String prefix;
    private final String scope;
    private final Sql candidates;
    /** Where the candidates' statement is prepared. */
    private final ConnectionSource connections;

    /** @param scope names the database, so the locks of two databases never meet */
    ProcessLocks(Dialect dialect, String table, String scope, AdvisoryStatements statements,
            ConnectionSource connections) {
        this.dialect = dialect;
        this.connections = connections;
        this.prefix = table + ":";
        this.scope = scope + "|";
        this.candidates = new Sql("advisory candidates", statements.candidates());
    }

    @Override
    public List<Sql> statements() {
        return List.of(candidates);
    }

    @Override
    public Map<Object, String> lockDue(Connection session, Instant now, int limit, int heldHere) throws SQLException {
        Map<Object, String> locked = new LinkedHashMap<>();
        return connections.prepared(session, candidates, ps -> {
            candidates.setTime(ps, "now", dialect.stored(now), dialect);
            candidates.setInt(ps, "limit", limit + SCAN_EXTRA + heldHere);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next() && locked.size() < limit) {
                    String key = prefix + rs.getString(2);
                    if (HELD.add(scope + key)) {
                        locked.put(RowIds.read(rs, 1), key);
                    }
                }
            }
            return locked;
        });
    }

    /** Takes the lock on {@code key} ({@code <table>:<key>}) of database {@code scope} if free: false when held. */
    public static boolean tryLock(String scope, String key) {
        return HELD.add(scope + "|" + key);
    }

    /** Releases what {@link #tryLock} took. */
    public static void release(String scope, String key) {
        HELD.remove(scope + "|" + key);
    }

    @Override
    public void unlock(Connection session, String key) {
        HELD.remove(scope + key);
    }

    @Override
    public void unlockAll(Connection session, Collection<String> keys) {
        keys.forEach(key -> HELD.remove(scope + key));
    }
}
