package dev.inbox.internal.broker;

import dev.inbox.Cancellation;
import dev.inbox.ClaimForm;
import dev.inbox.internal.form.advisory.ProcessLocks;
import dev.inbox.internal.jdbc.JdbcTransaction;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.CancelStatements;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.TableShape;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Cancels one job: removes its row unless a delivery holds it, which each claim form tells its own
 * way (a lease not run out, a row lock, an advisory lock). A job in work is left to its handler.
 */
public final class JobCancel {
    private final Dialect dialect;
    private final TableShape table;
    private final String lockScope;
    private final Sql find;
    private final Sql lock;
    private final Sql delete;
    private final Sql unlock;

    /** @param lockScope names the database, as the advisory form's in-process locks do */
    public JobCancel(Dialect dialect, TableShape table, String lockScope) {
        this.dialect = dialect;
        this.table = table;
        this.lockScope = lockScope;
        CancelStatements statements = dialect.cancel(table);
        this.find = new Sql("cancel find", statements.find());
        this.lock = statements.lock() == null ? null : new Sql("cancel lock", statements.lock());
        this.delete = new Sql("cancel delete", statements.delete());
        this.unlock = statements.unlock() == null ? null : new Sql("cancel unlock", statements.unlock());
    }

    /**
     * Cancels job {@code id} on {@code connection}, judging leases at {@code now}: inside the
     * caller's transaction where {@code callers} or the connection is in one, else in its own.
     */
    public Cancellation cancel(Connection connection, Object id, Instant now, boolean callers) throws SQLException {
        ClaimForm form = table.spec().claimForm();
        boolean cancelled = switch (form) {
            case LEASE -> delete(connection, id, now);
            case ROW_LOCK -> JdbcTransaction.joinOrRun(connection, callers, () -> locked(connection, id) != null
                    && delete(connection, id, now));
            case ADVISORY -> lock != null ? withServerLock(connection, id, now) : withProcessLock(connection, id, now);
        };
        if (cancelled) {
            return Cancellation.CANCELLED;
        }
        Found found = find(connection, id);
        return found == null || found.processed() ? Cancellation.NOT_FOUND : Cancellation.IN_WORK;
    }

    private boolean delete(Connection connection, Object id, Instant now) throws SQLException {
        try (PreparedStatement ps = delete.prepare(connection)) {
            delete.set(ps, "id", id);
            if (delete.uses("now")) {
                delete.setTime(ps, "now", dialect.stored(now), dialect);
            }
            return ps.executeUpdate() > 0;
        }
    }

    /** The row locked (row lock form) or the key whose advisory lock this session took; null when held elsewhere or gone. */
    private String locked(Connection connection, Object id) throws SQLException {
        try (PreparedStatement ps = lock.prepare(connection)) {
            lock.set(ps, "id", id);
            if (lock.uses("prefix")) {
                lock.setString(ps, "prefix", prefix());
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? String.valueOf(rs.getObject(1)) : null;
            }
        }
    }

    private boolean withServerLock(Connection connection, Object id, Instant now) throws SQLException {
        String key = locked(connection, id);
        if (key == null) {
            return false;
        }
        try {
            return delete(connection, id, now);
        } finally {
            try (PreparedStatement ps = unlock.prepare(connection)) {
                unlock.setString(ps, "key", prefix() + key);
                ps.executeQuery().close();
            }
        }
    }

    private boolean withProcessLock(Connection connection, Object id, Instant now) throws SQLException {
        Found found = find(connection, id);
        if (found == null || found.processed()) {
            return false;
        }
        String key = prefix() + found.key();
        if (!ProcessLocks.tryLock(lockScope, key)) {
            return false;
        }
        try {
            return delete(connection, id, now);
        } finally {
            ProcessLocks.release(lockScope, key);
        }
    }

    private String prefix() {
        return table.spec().table() + ":";
    }

    private record Found(boolean processed, String key) {}

    private Found find(Connection connection, Object id) throws SQLException {
        try (PreparedStatement ps = find.prepare(connection)) {
            find.set(ps, "id", id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                return new Found(rs.getObject(1) != null, rs.getString(2));
            }
        }
    }
}
