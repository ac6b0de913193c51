package dev.inbox.bench;

import dev.inbox.ClaimForm;
import dev.inbox.Column;
import dev.inbox.InboxSpec;
import dev.inbox.dialect.MySqlDialect;
import dev.inbox.dialect.PostgresDialect;
import dev.inbox.dialect.SqliteDialect;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.TableShape;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/**
 * A database the benchmark runs on: its queue table {@code bench_jobs} for one claim form, and
 * the side table {@code bench_effects} transactional handlers write to. {@code galera} is a node
 * of a MariaDB Galera Cluster ({@code scripts/galera.sh}), which serves the lease form only.
 */
record BenchDatabase(String name, String url) {
    static final String TABLE = "bench_jobs";
    static final String EFFECTS = "bench_effects";
    static final String QUEUE = "bench";
    /** The one write of a transactional handler, engine and baseline alike. */
    static final String EFFECT_INSERT = "INSERT INTO " + EFFECTS + " (job) VALUES (?)";

    /**
     * A connection of the baseline or the harness. On SQLite it waits longer for the write lock
     * than the engine's pool (10 s): a plain loop has no claim loop that backs off and tries again.
     */
    Connection connect() throws SQLException {
        Connection c = DriverManager.getConnection(url);
        if (name.equals("sqlite")) {
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA busy_timeout = 60000");
            }
        }
        return c;
    }

    /** The server the database runs on: {@code galera} is MariaDB. */
    String server() {
        return name.equals("galera") ? "mariadb" : name;
    }

    Dialect dialect() {
        return switch (server()) {
            case "postgres" -> new PostgresDialect();
            case "mariadb" -> new MySqlDialect();
            default -> new SqliteDialect();
        };
    }

    /** The forms the dialect serves; on Galera the lease form alone (the engine refuses the others there). */
    boolean serves(ClaimForm form) {
        return name.equals("galera") ? form == ClaimForm.LEASE : dialect().capabilities().forms().contains(form);
    }

    /** The queue table's description: an advisory_lock column for the advisory form, locked_until for the lease. */
    InboxSpec spec(ClaimForm form) {
        InboxSpec spec = InboxSpec.table(TABLE, Column.of("id").generated()).attempt(Column.of("attempt").generated())
                .payload(Column.of("payload"));
        return switch (form) {
            case LEASE -> spec.lease(Column.of("locked_until"));
            case ADVISORY -> spec.advisoryLock(Column.of("advisory_lock"));
            case ROW_LOCK -> spec;
        };
    }

    /** The table as the dialect's statements see it, for the baseline. */
    TableShape shape(ClaimForm form) {
        Dialect dialect = dialect();
        // The types the driver reports for the table create() makes, where a statement depends on them.
        return new TableShape(spec(form), dialect::quote, switch (server()) {
            case "postgres" -> Map.of("payload", "bytea", "id", "bigserial");
            case "mariadb" -> Map.of("payload", "blob", "id", "bigint");
            default -> Map.of("payload", "blob", "id", "integer");
        });
    }

    /** Drops and creates the queue table, empty, and the effects table. */
    void create(ClaimForm form) throws SQLException {
        String id = switch (server()) {
            case "postgres" -> "BIGSERIAL PRIMARY KEY";
            case "mariadb" -> "BIGINT AUTO_INCREMENT PRIMARY KEY";
            default -> "INTEGER PRIMARY KEY";
        };
        String time = switch (server()) {
            case "postgres" -> "TIMESTAMPTZ";
            case "mariadb" -> "DATETIME NULL";
            default -> "TEXT";
        };
        String formColumn = switch (form) {
            case LEASE -> ", locked_until " + time;
            case ADVISORY -> ", advisory_lock BIGINT";
            case ROW_LOCK -> "";
        };
        try (Connection c = connect(); Statement s = c.createStatement()) {
            if (name.equals("sqlite")) {
                s.execute("PRAGMA journal_mode = WAL");
            }
            s.execute("DROP TABLE IF EXISTS " + TABLE);
            s.execute("CREATE TABLE " + TABLE + " (id " + id + ", attempt SMALLINT NOT NULL DEFAULT 1" + formColumn
                    + ", payload " + (name.equals("postgres") ? "BYTEA" : "BLOB") + " NOT NULL)");
            s.execute("DROP TABLE IF EXISTS " + EFFECTS);
            s.execute("CREATE TABLE " + EFFECTS + " (job BIGINT NOT NULL)");
        }
    }

    /** Inserts {@code jobs} rows in one transaction: they become due together. */
    void insertJobs(int jobs) throws SQLException {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (payload) VALUES (?)")) {
                for (int i = 0; i < jobs; i++) {
                    ps.setBytes(1, Job.json(i));
                    ps.addBatch();
                    if (i % 1000 == 999) {
                        ps.executeBatch();
                    }
                }
                ps.executeBatch();
            }
            c.commit();
        }
    }

    /** Drops and creates the queue table, then fills it with {@code jobs} rows. */
    void fill(ClaimForm form, int jobs) throws SQLException {
        create(form);
        insertJobs(jobs);
    }

    /** The rows in {@code table}, to check a run did all its work. */
    long count(String table) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
