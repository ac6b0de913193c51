package dev.inbox.bench;

import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/**
 * A statement of one row as one statement for a list of rows, where the dialect writes one (the
 * forms' statements {@code stampRows}, {@code ackRows}, ...), run as the engine runs it: the rows
 * as one parameter, the times the statement names once.
 */
final class RowList {
    private final Sql sql;
    private final PreparedStatement ps;
    private final Dialect dialect;

    private RowList(Sql sql, PreparedStatement ps, Dialect dialect) {
        this.sql = sql;
        this.ps = ps;
        this.dialect = dialect;
    }

    /** {@code perRow} for a list of rows, {@code text}, prepared on {@code connection}; null where the dialect writes none. */
    static RowList of(Dialect dialect, String text, Sql perRow, Connection connection) throws SQLException {
        if (text == null) {
            return null;
        }
        Sql sql = new Sql(perRow.name() + " of a list of rows", text);
        return new RowList(sql, sql.prepare(connection), dialect);
    }

    /** Runs it, a query, for {@code ids} at {@code now}; returns the ids of the rows it found. */
    List<Object> query(List<Object> ids, Instant now) throws SQLException {
        sql.setRows(ps, "rows", ids.toArray(), null, dialect);
        sql.setTime(ps, "now", now, dialect);
        try (ResultSet rs = ps.executeQuery()) {
            return BaselineLoop.ids(rs);
        }
    }

    /**
     * Runs it for {@code ids}, each holding {@code token} where the statement takes tokens, with
     * {@code expiry} where it names one; throws unless it changed every row.
     */
    void run(List<Object> ids, Instant token, Instant expiry) throws SQLException {
        Instant[] tokens = null;
        if (token != null) {
            tokens = new Instant[ids.size()];
            Arrays.fill(tokens, dialect.stored(token));
        }
        sql.setRows(ps, "rows", ids.toArray(), tokens, dialect);
        sql.setTime(ps, "expiry", expiry, dialect);
        sql.setTime(ps, "processed", sql.uses("processed") ? dialect.stored(Instant.now()) : null, dialect);
        int changed = ps.executeUpdate();
        if (changed != ids.size()) {
            throw new IllegalStateException(sql.name() + ": changed " + changed + " of " + ids.size() + " rows");
        }
    }
}
