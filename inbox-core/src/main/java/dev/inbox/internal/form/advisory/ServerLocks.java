package dev.inbox.internal.form.advisory;

import dev.inbox.internal.jdbc.ConnectionSource;
import dev.inbox.internal.jdbc.RowIds;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.AdvisoryStatements;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Advisory locks the database keeps on a session (PostgreSQL {@code pg_try_advisory_lock}, MySQL
 * {@code GET_LOCK}): one statement locks due rows, passing over others' locks, and a lock ends
 * with its session, so a crashed process's rows come back at once.
 */
final class ServerLocks implements AdvisoryLocks {

    private final Dialect dialect;
    private final String prefix;
    private final Sql lockCandidates;
    private final Sql unlock;
    private final Sql unlockAll;
    /** Where the statements of every claim and session end are prepared. */
    private final ConnectionSource connections;

    ServerLocks(Dialect dialect, String table, AdvisoryStatements statements, ConnectionSource connections) {
        this.dialect = dialect;
        this.connections = connections;
        this.prefix = table + ":";
        this.lockCandidates = new Sql("advisory lock candidates", statements.lockCandidates());
        this.unlock = new Sql("advisory unlock", statements.unlock());
        this.unlockAll = new Sql("advisory unlock all", statements.unlockAll());
    }

    @Override
    public List<Sql> statements() {
        return List.of(lockCandidates, unlock, unlockAll);
    }

    @Override
    public Map<Object, String> lockDue(Connection session, Instant now, int limit, int heldHere) throws SQLException {
        Map<Object, String> locked = new LinkedHashMap<>();
        return connections.prepared(session, lockCandidates, ps -> {
            lockCandidates.setTime(ps, "now", dialect.stored(now), dialect);
            lockCandidates.setString(ps, "prefix", prefix);
            lockCandidates.setInt(ps, "scan", limit + SCAN_EXTRA + heldHere);
            lockCandidates.setInt(ps, "limit", limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    locked.put(RowIds.read(rs, 1), prefix + rs.getString(2));
                }
            }
            return locked;
        });
    }

    @Override
    public void unlock(Connection session, String key) throws SQLException {
        try (PreparedStatement ps = unlock.prepare(session)) {
            unlock.setString(ps, "key", key);
            ps.executeQuery().close();
        }
    }

    @Override
    public void unlockAll(Connection session, Collection<String> keys) throws SQLException {
        connections.prepared(session, unlockAll, ps -> {
            ps.executeQuery().close();
            return null;
        });
    }
}
