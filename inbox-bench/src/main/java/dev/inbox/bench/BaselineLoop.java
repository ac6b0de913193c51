package dev.inbox.bench;

import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.Dialect;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One thread's plain JDBC drain of a claim form: the dialect's own statements, on connections the
 * thread keeps, with none of the engine around them.
 */
interface BaselineLoop extends AutoCloseable {

    /** Claims up to the batch and settles every row claimed; returns how many, 0 when none was claimable. */
    int round() throws SQLException;

    @Override
    void close() throws SQLException;

    /** The ids of a claim's result (id, attempt, payload, headers), reading each payload as the engine does. */
    static List<Object> ids(ResultSet rs) throws SQLException {
        List<Object> ids = new ArrayList<>();
        while (rs.next()) {
            ids.add(rs.getObject(1));
            rs.getBytes(3);
        }
        return ids;
    }

    /**
     * Acks {@code ids}, each holding {@code token} where the statement takes tokens, with the one
     * statement of the forms' {@code ackAll}; throws unless it returned each row.
     */
    static void ackAllInOne(PreparedStatement ps, Sql sql, List<Object> ids, Instant token, Dialect dialect)
            throws SQLException {
        sql.setRows(ps, "ids", ids.toArray(), null, dialect);
        if (sql.uses("tokens")) {
            String[] tokens = new String[ids.size()];
            Arrays.fill(tokens, dialect.stored(token).toString());
            sql.setTexts(ps, "tokens", tokens);
        }
        sql.setTime(ps, "processed", sql.uses("processed") ? dialect.stored(Instant.now()) : null, dialect);
        int acked = 0;
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                acked++;
            }
        }
        if (acked != ids.size()) {
            throw new IllegalStateException(sql.name() + ": acked " + acked + " of " + ids.size() + " rows");
        }
    }

    /** Runs the batch of {@code ps}; throws when one of its statements (named {@code what}) changed no row. */
    static void executeChangingEach(PreparedStatement ps, String what) throws SQLException {
        for (int count : ps.executeBatch()) {
            if (count == 0) {
                throw new IllegalStateException(what + ": a statement of the batch changed no row");
            }
        }
    }
}
