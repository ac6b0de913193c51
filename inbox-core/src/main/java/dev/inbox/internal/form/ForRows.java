package dev.inbox.internal.form;

import dev.inbox.internal.jdbc.ConnectionSource;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * A statement that acts on one row, as one statement for a list of rows where the dialect writes
 * one (the statements' {@code ...Rows}): the rows go as one parameter, so that a batch of rows costs one
 * round trip on a driver that sends a JDBC batch as a round trip per row.
 */
public final class ForRows {
    private final Sql sql;
    /** True where the statement of one row names the row's token: each row's goes with its id. */
    private final boolean tokens;

    public ForRows(Sql sql, boolean tokens) {
        this.sql = sql;
        this.tokens = tokens;
    }

    /** Binds what the statement has once, whatever the rows. */
    @FunctionalInterface
    public interface Shared {
        void bind(Sql sql, PreparedStatement statement) throws SQLException;
    }

    /**
     * Runs the statement for {@code rows}, prepared where {@code statements} keeps it (null: on a
     * connection of no source's); returns how many rows it changed.
     */
    public int run(ConnectionSource statements, Connection connection, List<InFlight> rows, Dialect dialect, Shared shared)
            throws SQLException {
        Object[] ids = new Object[rows.size()];
        Instant[] held = tokens ? new Instant[rows.size()] : null;
        for (int i = 0; i < ids.length; i++) {
            ids[i] = rows.get(i).id();
            if (held != null) {
                held[i] = dialect.stored(rows.get(i).token());
            }
        }
        return execute(statements, connection, ids, held, dialect, shared, PreparedStatement::executeUpdate);
    }

    /** Runs the statement, a query, for the rows of {@code ids} and reads what it returns. */
    public <R> R query(ConnectionSource statements, Connection connection, Object[] ids, Dialect dialect, Shared shared,
            Reader<R> reader) throws SQLException {
        return execute(statements, connection, ids, null, dialect, shared, ps -> {
            try (ResultSet rs = ps.executeQuery()) {
                return reader.read(rs);
            }
        });
    }

    /** Reads a query's result. */
    @FunctionalInterface
    public interface Reader<R> {
        R read(ResultSet rs) throws SQLException;
    }

    private <R> R execute(ConnectionSource statements, Connection connection, Object[] ids, Instant[] held,
            Dialect dialect, Shared shared, ConnectionSource.OnStatement<R> run) throws SQLException {
        ConnectionSource.OnStatement<R> work = ps -> {
            shared.bind(sql, ps);
            sql.setRows(ps, "rows", ids, held, dialect);
            return run.run(ps);
        };
        return ConnectionSource.prepared(statements, connection, sql, work);
    }
}
