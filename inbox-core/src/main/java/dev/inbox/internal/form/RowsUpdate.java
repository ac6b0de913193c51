package dev.inbox.internal.form;

import dev.inbox.internal.jdbc.ConnectionSource;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * A statement of one row, run for the rows of a claim: as one statement for the list where the
 * dialect writes one ({@link ForRows}), else as a JDBC batch of the statement of one row. The lease
 * and row lock claims' stamps, an advisory claim's attempts counted.
 */
public final class RowsUpdate {
    private final Sql perRow;
    private final ForRows list;

    /** @param list {@code perRow} for a list of rows, or null where there is none */
    public RowsUpdate(Sql perRow, ForRows list) {
        this.perRow = perRow;
        this.list = list;
    }

    /** The statement of one row. */
    public Sql perRow() {
        return perRow;
    }

    /** How many statements it runs for {@code rows} rows: one where it goes as one for the list. */
    public int statements(int rows) {
        return rows > 1 && list != null ? 1 : rows;
    }

    /**
     * Runs it for {@code rows} on {@code connection}, prepared by {@code statements} where the
     * connection is one of its own (null: prepared for this run); {@code shared} binds what every
     * row shares. Nothing runs for no rows.
     */
    public void run(ConnectionSource statements, Connection connection, List<InFlight> rows, Dialect dialect,
            ForRows.Shared shared) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        if (rows.size() > 1 && list != null) {
            list.run(statements, connection, rows, dialect, shared);
            return;
        }
        ConnectionSource.prepared(statements, connection, perRow, ps -> {
            for (InFlight row : rows) {
                shared.bind(perRow, ps);
                perRow.set(ps, "id", row.id());
                ps.addBatch();
            }
            return ps.executeBatch();
        });
    }
}
