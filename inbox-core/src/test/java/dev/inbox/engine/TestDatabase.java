package dev.inbox.engine;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.dialect.MySqlDialect;
import dev.inbox.dialect.PostgresDialect;
import dev.inbox.dialect.SqliteDialect;
import dev.inbox.spi.Dialect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumMap;
import java.util.Map;

/**
 * The real databases the tests run on. Server addresses come from {@code INBOX_TEST_POSTGRES_URL},
 * {@code INBOX_TEST_MARIADB_URL} and {@code INBOX_TEST_CONNECTORJ_URL} (system properties
 * {@code inbox.test.*.url} or the environment), falling back to the local servers (embedded ones
 * where nothing answers there: {@link dev.inbox.testdb.TestServers}); SQLite is a file
 * in a temporary folder. A server that cannot be reached fails its tests: nothing is skipped. A
 * real MySQL is the exception: {@code INBOX_TEST_MYSQL_URL}, else one Testcontainers starts where a
 * Docker engine runs, else its cases are skipped, saying why.
 */
enum TestDatabase {
    POSTGRES("inbox.test.postgres.url", "INBOX_TEST_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"),
    MARIADB("inbox.test.mariadb.url", "INBOX_TEST_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test?user=root"),
    SQLITE(null, null, null),
    /** The local MariaDB through MySQL Connector/J and a {@code jdbc:mysql://} URL. */
    CONNECTOR_J("inbox.test.connectorj.url", "INBOX_TEST_CONNECTORJ_URL",
            "jdbc:mysql://127.0.0.1:3306/test?user=root&sslMode=DISABLED"),
    /** A real MySQL 8 server, through Connector/J. */
    MYSQL("inbox.test.mysql.url", "INBOX_TEST_MYSQL_URL", null);

    private static final Map<TestDatabase, HikariDataSource> POOLS = new EnumMap<>(TestDatabase.class);
    private static final Map<TestDatabase, HikariDataSource> READ_COMMITTED_POOLS = new EnumMap<>(TestDatabase.class);
    private static Path sqliteFile;

    private final String property;
    private final String variable;
    private final String fallback;

    TestDatabase(String property, String variable, String fallback) {
        this.property = property;
        this.variable = variable;
        this.fallback = fallback;
    }

    /** The JDBC URL of this database. */
    synchronized String url() {
        if (this == SQLITE) {
            if (sqliteFile == null) {
                try {
                    sqliteFile = Files.createTempDirectory("inbox-test").resolve("inbox.db");
                } catch (java.io.IOException e) {
                    throw new IllegalStateException(e);
                }
            }
            return "jdbc:sqlite:" + sqliteFile;
        }
        String url = System.getProperty(property);
        if (url == null || url.isBlank() || url.startsWith("${")) {
            url = System.getenv(variable);
        }
        if (url != null && !url.isBlank()) {
            return url;
        }
        return this == MYSQL ? MySqlContainer.url() : dev.inbox.testdb.TestServers.orEmbedded(fallback);
    }

    /** True for the databases of the MySQL family (MariaDB, and MySQL through either driver): their DDL. */
    boolean mysqlFamily() {
        return this == MARIADB || this == CONNECTOR_J || this == MYSQL;
    }

    /** The built-in dialect of this database. */
    Dialect dialect() {
        return switch (this) {
            case POSTGRES -> new PostgresDialect();
            case MARIADB, CONNECTOR_J, MYSQL -> new MySqlDialect();
            case SQLITE -> new SqliteDialect();
        };
    }

    /** A pool the tests share for set-up and checks. */
    synchronized HikariDataSource dataSource() {
        return POOLS.computeIfAbsent(this, db -> {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(db.url());
            config.setMaximumPoolSize(db == SQLITE ? 4 : 24);
            config.setPoolName("test-" + db.name().toLowerCase());
            if (db == SQLITE) {
                config.setConnectionInitSql("PRAGMA busy_timeout = 10000");
            }
            HikariDataSource pool = new HikariDataSource(config);
            if (db == SQLITE) {
                run(pool, "PRAGMA journal_mode = WAL");
            } else {
                // The sample's servers create it in this database; these tests describe one table
                // name several ways in turn and leave brokers as a crash would, so they go without it
                // (SubscriberTableTest names a table of its own).
                run(pool, "DROP TABLE IF EXISTS " + InboxBroker.DEFAULT_SUBSCRIBER_TABLE);
            }
            return pool;
        });
    }

    /**
     * A pool set up as a server's data source for Inbox is (liberty-config's): at READ COMMITTED on
     * MySQL and MariaDB, whose default is REPEATABLE READ; elsewhere the shared pool.
     */
    synchronized javax.sql.DataSource serverDataSource() {
        if (!mysqlFamily()) {
            return dataSource();
        }
        return READ_COMMITTED_POOLS.computeIfAbsent(this, db -> {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(db.url());
            config.setMaximumPoolSize(24);
            config.setPoolName("test-server-" + db.name().toLowerCase());
            config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
            return new HikariDataSource(config);
        });
    }

    /** Drops and creates a lease table named {@code table}: id, attempt, locked_until, payload. */
    void createLeaseTable(String table) {
        String ddl = switch (this) {
            case POSTGRES -> "CREATE TABLE " + table + " (id BIGSERIAL PRIMARY KEY,"
                    + " attempt SMALLINT NOT NULL DEFAULT 1, locked_until TIMESTAMPTZ, payload BYTEA NOT NULL)";
            case MARIADB, CONNECTOR_J, MYSQL -> "CREATE TABLE " + table + " (id BIGINT AUTO_INCREMENT PRIMARY KEY,"
                    + " attempt SMALLINT NOT NULL DEFAULT 1, locked_until DATETIME NULL, payload BLOB NOT NULL)"
                    + " ENGINE=InnoDB";
            case SQLITE -> "CREATE TABLE " + table + " (id INTEGER PRIMARY KEY AUTOINCREMENT,"
                    + " attempt INTEGER NOT NULL DEFAULT 1, locked_until TEXT, payload BLOB NOT NULL)";
        };
        execute("DROP TABLE IF EXISTS " + table, ddl);
    }

    /** Runs statements, each in its own transaction. */
    void execute(String... statements) {
        run(dataSource(), statements);
    }

    /** Rows of {@code table}; asks twice, since a test may have killed the pool's connections. */
    long count(String table) {
        try {
            return countOnce(table);
        } catch (SQLException first) {
            try {
                return countOnce(table);
            } catch (SQLException e) {
                e.addSuppressed(first);
                throw new IllegalStateException(e);
            }
        }
    }

    private long countOnce(String table) throws SQLException {
        return number("SELECT COUNT(*) FROM " + table);
    }

    /** The one number {@code sql} returns, read on a connection of the test pool. */
    long number(String sql) throws SQLException {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
                var rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The one text {@code sql} returns (null for SQL NULL or no row), read on a connection of the test pool. */
    String text(String sql) {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
                var rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void run(javax.sql.DataSource dataSource, String... statements) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("test set-up failed: " + e.getMessage(), e);
        }
    }
}
