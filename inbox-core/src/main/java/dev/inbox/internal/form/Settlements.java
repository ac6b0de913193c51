package dev.inbox.internal.form;

import dev.inbox.Outcome;
import dev.inbox.internal.jdbc.ConnectionSource;
import dev.inbox.internal.jdbc.RowIds;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The settlement statements every claim form runs alike: which one an outcome takes, and its binding. */
public final class Settlements {

    /** Work on the connection a settlement runs on. */
    @FunctionalInterface
    interface OnConnection {
        void run(Connection connection) throws SQLException;
    }

    private Settlements() {}

    /** The statement of {@code outcome}; null where the form has none (a retry without retry_after). */
    public static Sql of(Outcome outcome, Sql ack, Sql retry, Sql drop) {
        return switch (outcome.kind()) {
            case ACK -> ack;
            case RETRY -> retry;
            case DROP -> drop;
        };
    }

    /**
     * Runs {@code sql} for the delivery: its id, its token where the statement guards with one, the
     * ack's time and a retry's due time. Returns the rows it changed.
     */
    public static int run(Connection connection, Sql sql, InFlight delivery, Outcome outcome, Instant now, Dialect dialect)
            throws SQLException {
        try (PreparedStatement ps = sql.prepare(connection)) {
            bind(ps, sql, delivery, outcome, now, dialect);
            return ps.executeUpdate();
        }
    }

    /**
     * Puts a row whose settlement the database refused off by {@code delay}, with the form's
     * {@code retry} statement; nothing where that is null (a table that cannot delay a row, which
     * is then due again at once).
     */
    public static void putOff(Connection connection, Sql retry, InFlight delivery, Duration delay, Instant now,
            Dialect dialect) throws SQLException {
        if (retry != null) {
            run(connection, retry, delivery, Outcome.retry(delay), now, dialect);
        }
    }

    /**
     * Runs {@code sql} for each delivery, as one JDBC batch; returns for each whether it changed a
     * row (true where the driver cannot tell).
     */
    static boolean[] runBatch(ConnectionSource statements, Connection connection, Sql sql, List<InFlight> deliveries,
            Outcome outcome, Instant now, Dialect dialect) throws SQLException {
        int[] counts = statements.prepared(connection, sql, ps -> {
            for (InFlight delivery : deliveries) {
                bind(ps, sql, delivery, outcome, now, dialect);
                ps.addBatch();
            }
            return ps.executeBatch();
        });
        boolean[] changed = new boolean[deliveries.size()];
        for (int i = 0; i < changed.length; i++) {
            changed[i] = i >= counts.length || counts[i] != 0;
        }
        return changed;
    }

    /**
     * Runs {@code sql} for the deliveries as one statement ({@link ForRows}); returns true for each.
     *
     * @throws RowsMissed where it changed fewer rows than deliveries: the caller's transaction rolls
     *                    back, and a statement per row tells which were no longer there
     */
    static boolean[] runRows(ConnectionSource statements, Connection connection, ForRows sql,
            List<InFlight> deliveries, Outcome outcome, Instant now, Dialect dialect) throws SQLException {
        int changed = sql.run(statements, connection, deliveries, dialect,
                (rows, ps) -> bindShared(ps, rows, outcome, now, dialect));
        if (changed != deliveries.size()) {
            throw new RowsMissed(changed, deliveries.size());
        }
        boolean[] all = new boolean[deliveries.size()];
        Arrays.fill(all, true);
        return all;
    }

    /** A statement for a list of rows changed fewer than the list holds: some were no longer there for it. */
    static final class RowsMissed extends SQLException {
        RowsMissed(int changed, int rows) {
            super("a statement for " + rows + " rows changed " + changed);
        }
    }

    /**
     * Acks the deliveries with one statement (the statements' {@code ackAll}); returns for each whether
     * the statement returned its row's id.
     */
    static boolean[] runAll(ConnectionSource statements, Connection connection, Sql sql, List<InFlight> deliveries,
            Instant now, Dialect dialect) throws SQLException {
        return statements.prepared(connection, sql, ps -> {
            Object[] ids = bindAll(ps, sql, deliveries, now, dialect);
            try (ResultSet rs = ps.executeQuery()) {
                return readAll(rs, ids);
            }
        });
    }

    /**
     * Binds the acks of the statements' {@code ackAll} (in {@code sql}, alone or after a claim) for the
     * deliveries; returns their ids as bound, for {@link #readAll}.
     */
    static Object[] bindAll(PreparedStatement ps, Sql sql, List<InFlight> deliveries, Instant now, Dialect dialect)
            throws SQLException {
        Object[] ids = new Object[deliveries.size()];
        String[] tokens = sql.uses("tokens") ? new String[ids.length] : null;
        Instant token = null;
        for (int i = 0; i < ids.length; i++) {
            InFlight delivery = deliveries.get(i);
            ids[i] = delivery.id();
            if (tokens != null) {
                // The rows of one claim share their token: formatted once (a formatter's work per row).
                Instant next = delivery.token();
                tokens[i] = next.equals(token) ? tokens[i - 1] : dialect.stored(next).toString();
                token = next;
            }
        }
        sql.setRows(ps, "ids", ids, null, dialect);
        if (tokens != null) {
            sql.setTexts(ps, "tokens", tokens);
        }
        sql.setTime(ps, "processed", sql.uses("processed") ? dialect.stored(now) : null, dialect);
        return ids;
    }

    /** For each of {@code ids}, whether the acks' result {@code rs} returned it: whether its ack took. */
    static boolean[] readAll(ResultSet rs, Object[] ids) throws SQLException {
        List<Object> returned = new ArrayList<>(ids.length);
        while (rs.next()) {
            returned.add(RowIds.read(rs, 1));
        }
        boolean[] changed = new boolean[ids.length];
        if (returned.size() == ids.length) {
            // Each row changed comes back once, and only rows of the list change: as many back as the
            // list holds means every id took (a list with an id twice gets fewer back).
            Arrays.fill(changed, true);
            return changed;
        }
        Set<String> acked = new HashSet<>();
        for (Object id : returned) {
            acked.add(String.valueOf(id));
        }
        for (int i = 0; i < changed.length; i++) {
            changed[i] = acked.contains(String.valueOf(ids[i]));
        }
        return changed;
    }

    private static void bind(PreparedStatement ps, Sql sql, InFlight delivery, Outcome outcome, Instant now,
            Dialect dialect) throws SQLException {
        sql.set(ps, "id", delivery.id());
        sql.setTime(ps, "token", delivery.token(), dialect);
        bindShared(ps, sql, outcome, now, dialect);
        if (outcome.kind() == Outcome.Kind.RETRY) {
            // The text for the last error column, which a statement of a table without one has no place for.
            sql.setString(ps, "lastError", outcome.reason());
        }
    }

    /** Binds what every row of a settlement shares: the ack's time, a retry's due time. */
    private static void bindShared(PreparedStatement ps, Sql sql, Outcome outcome, Instant now, Dialect dialect)
            throws SQLException {
        sql.setTime(ps, "processed", sql.uses("processed") ? dialect.stored(now) : null, dialect);
        sql.setTime(ps, "due", outcome.delay().isZero() ? null : dialect.deadline(now, outcome.delay()), dialect);
        sql.set(ps, "delay", outcome.delay().isZero() ? null : outcome.delay().toMillis());
    }
}
