package dev.inbox.bench.adapter.it;

import dev.inbox.Column;
import dev.inbox.InboxSpec;
import dev.inbox.dialect.MySqlDialect;
import dev.inbox.dialect.PostgresDialect;
import dev.inbox.spi.Dialect;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;

/**
 * One database's benchmark tables: the adapter's ({@code benchra_jobs}, {@code benchra_txjobs},
 * {@code benchra_effects}, which the bench WAR's handlers use) and the same three for the engine
 * alone ({@code benchra_engine_*}), so the running server never claims the engine's rows.
 */
record BenchTables(String db, String url) {
    static final String ADAPTER = "benchra_";
    static final String ENGINE = "benchra_engine_";

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url);
    }

    Dialect dialect() {
        return db.equals("postgres") ? new PostgresDialect() : new MySqlDialect();
    }

    /** The queue table of {@code prefix} ({@code jobs} or {@code txjobs}), as the engine reads it. */
    static InboxSpec spec(String table) {
        return InboxSpec.table(table, Column.of("id").generated()).attempt(Column.of("attempt").generated())
                .lease(Column.of("locked_until")).payload(Column.of("payload"));
    }

    /** Drops and creates the six tables. */
    void create() throws SQLException {
        boolean pg = db.equals("postgres");
        String id = pg ? "BIGSERIAL PRIMARY KEY" : "BIGINT AUTO_INCREMENT PRIMARY KEY";
        String time = pg ? "TIMESTAMPTZ" : "DATETIME NULL";
        String blob = pg ? "BYTEA" : "BLOB";
        try (Connection c = connect(); Statement s = c.createStatement()) {
            for (String prefix : new String[] {ADAPTER, ENGINE}) {
                for (String queue : new String[] {"jobs", "txjobs"}) {
                    s.execute("DROP TABLE IF EXISTS " + prefix + queue);
                    s.execute("CREATE TABLE " + prefix + queue + " (id " + id + ", attempt SMALLINT NOT NULL DEFAULT 1,"
                            + " locked_until " + time + ", payload " + blob + " NOT NULL)");
                }
                s.execute("DROP TABLE IF EXISTS " + prefix + "effects");
                s.execute("CREATE TABLE " + prefix + "effects (n BIGINT NOT NULL)");
            }
        }
    }

    /** Empties {@code table} of {@code prefix} and the effects table beside it. */
    void empty(String prefix, String table) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("TRUNCATE TABLE " + prefix + table);
            s.execute("TRUNCATE TABLE " + prefix + "effects");
        }
    }

    /**
     * Fills {@code table} with
     * {@code jobs} rows in one transaction, each leased until {@code due}: no claim takes any of them
     * before that instant, whenever the commit lands. Returns when the fill committed.
     */
    Instant fill(String prefix, String table, int jobs, Instant due) throws SQLException {
        Dialect dialect = dialect();
        try (Connection c = connect(); Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + prefix + table
                    + " (locked_until, payload) VALUES (?, ?)")) {
                for (int i = 0; i < jobs; i++) {
                    dialect.bindTime(ps, 1, dialect.stored(due));
                    ps.setBytes(2, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
                    ps.addBatch();
                    if (i % 1000 == 999) {
                        ps.executeBatch();
                    }
                }
                ps.executeBatch();
            }
            c.commit();
        }
        return Instant.now();
    }

    long count(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
