package dev.inbox.sample;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** The sample's plain SQL on its tables. */
final class Rows {
    private Rows() {}

    /** Writes one row through the application's JTA data source: inside a delivery's transaction it joins it. */
    static void insert(DataSource dataSource, String sql, Object... values) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            insert(c, sql, values);
        }
    }

    /**
     * Writes one row outside any transaction (a handler that is not transactional), committed as it
     * runs. GlassFish's and Payara's pools may hand out a connection in the manual commit a JTA
     * transaction left it in, where the write would wait for the connection's next user to commit:
     * it is switched back to autocommit first.
     */
    static void insertCommitted(DataSource dataSource, String sql, Object... values) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            if (!c.getAutoCommit()) {
                c.setAutoCommit(true);
            }
            insert(c, sql, values);
        }
    }

    private static void insert(Connection c, String sql, Object... values) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                ps.setObject(i + 1, values[i]);
            }
            ps.executeUpdate();
        }
    }

    /** The first column of each row of {@code sql}. */
    static List<Object> column(DataSource dataSource, String sql) throws SQLException {
        List<Object> values = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql);
                var rs = ps.executeQuery()) {
            while (rs.next()) {
                values.add(rs.getObject(1));
            }
        }
        return values;
    }

    /** Each row of {@code sql} (an order and an amount in cents). */
    static List<OrderAmount> orderAmounts(DataSource dataSource, String sql) throws SQLException {
        List<OrderAmount> rows = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql);
                var rs = ps.executeQuery()) {
            while (rs.next()) {
                rows.add(new OrderAmount(rs.getLong(1), rs.getLong(2)));
            }
        }
        return rows;
    }
}
