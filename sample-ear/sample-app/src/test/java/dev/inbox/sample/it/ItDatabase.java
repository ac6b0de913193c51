package dev.inbox.sample.it;

import dev.inbox.testdb.TestServers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Properties;
import java.util.function.BooleanSupplier;

/** The database behind the test server (sqlite, postgres or mariadb), as the tests read and reset it. */
final class ItDatabase {
    /** The sample's tables: its queues, and what its handlers write. */
    static final List<String> SAMPLE_TABLES = List.of("thumbnail_jobs", "report_jobs", "refund_jobs", "receipt_jobs",
            "refund_dead", "refund_retries", "refunds", "receipts_mailed", "thumbnails_rendered", "reports_rendered", "ledger_jobs", "ledger",
            "inbox_paused", "inbox_schedule", "inbox_subscribers");

    private final String name;
    private final Path sqliteFile;
    /** The pid file of the machine's MariaDB, read as {@link #stopServer} stops it; null until then. */
    private String mariadbPidFile;

    /** @param serverOutput where the server keeps its SQLite database file */
    ItDatabase(String name, Path serverOutput) {
        this.name = name;
        this.sqliteFile = serverOutput.resolve("inbox.db");
    }

    String name() {
        return name;
    }

    boolean sqlite() {
        return name.equals("sqlite");
    }

    Connection connect() throws SQLException {
        return switch (name) {
            case "postgres" -> DriverManager.getConnection(url("inbox.test.postgres.url",
                    "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
            case "mariadb" -> DriverManager.getConnection(url("inbox.test.mariadb.url",
                    "jdbc:mariadb://127.0.0.1:3306/test?user=root"));
            default -> DriverManager.getConnection("jdbc:sqlite:" + sqliteFile, sqliteProperties());
        };
    }

    /** The server's writers hold the file's lock under load: wait for it as the server does, not fail. */
    private static Properties sqliteProperties() {
        Properties p = new Properties();
        p.setProperty("busy_timeout", "30000");
        return p;
    }

    private static String url(String property, String fallback) {
        String url = System.getProperty(property);
        // Where nothing answers at the local address, an embedded server starts there for the run.
        return url == null || url.isBlank() || url.startsWith("${") ? TestServers.orEmbedded(fallback) : url;
    }

    /** Drops {@code tables} (SQLite: the whole file, which the server creates again). */
    void drop(List<String> tables) throws Exception {
        if (sqlite()) {
            Files.deleteIfExists(sqliteFile);
            return;
        }
        try (Connection c = connect(); Statement s = c.createStatement()) {
            for (String table : tables) {
                s.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    /** Runs {@code sql} (as an operator would by hand). */
    void execute(String sql) throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** The rows of a table, or of {@code "table WHERE condition"}. */
    /** The values of the first column {@code query} returns, in its order. */
    List<String> column(String query) throws SQLException {
        List<String> values = new java.util.ArrayList<>();
        try (Connection c = connect(); java.sql.Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery(query)) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }

    long count(String rows) {
        try (Connection c = connect(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + rows)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The lease of the first leased row of {@code table}, or null. */
    Instant lockedUntil(String table) {
        try (Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT locked_until FROM " + table + " WHERE locked_until IS NOT NULL")) {
            if (!rs.next()) {
                return null;
            }
            return switch (name) {
                case "postgres" -> rs.getObject(1, OffsetDateTime.class).toInstant();
                case "mariadb" -> rs.getObject(1, LocalDateTime.class).toInstant(ZoneOffset.UTC);
                default -> Instant.parse(rs.getString(1));
            };
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Stops the database server, as an outage would: the embedded one where it serves the run,
     * else the machine's own (as root, the way .ci/run starts it). MariaDB's is named by its own
     * pid file: other servers of the same binary may run beside it (the Galera nodes of
     * scripts/galera.sh, another run's), which {@code pgrep} and {@code start-stop-daemon --exec}
     * alone took for it.
     */
    void stopServer() throws IOException, InterruptedException {
        String mariadb = name.equals("mariadb") && !TestServers.embedded(3306) ? mariadbStop() : null;
        control(TestServers::stop, "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql | head -n 1) main stop",
                mariadb);
    }

    private String mariadbStop() throws IOException {
        try (Connection c = connect(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT @@pid_file")) {
            rs.next();
            mariadbPidFile = rs.getString(1);
        } catch (SQLException e) {
            throw new IOException("the MariaDB server's pid file could not be read: " + e.getMessage(), e);
        }
        String pid = Files.readString(Path.of(mariadbPidFile)).strip();
        return "mariadb-admin --protocol=TCP -h 127.0.0.1 -u root shutdown && for i in $(seq 1 600);"
                + " do kill -0 " + pid + " 2>/dev/null || exit 0; sleep 0.1; done; exit 1";
    }

    /** Starts the server {@link #stopServer} stopped, and waits until it answers. */
    void startServer() throws IOException, InterruptedException {
        control(TestServers::start, "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql | head -n 1) main start",
                "start-stop-daemon --start --oknodo --background"
                        + (mariadbPidFile == null ? "" : " --pidfile " + mariadbPidFile)
                        + " --exec /usr/sbin/mariadbd && for i in $(seq 1 300);"
                        + " do mariadb-admin --protocol=TCP -h 127.0.0.1 -u root ping >/dev/null 2>&1 && exit 0;"
                        + " sleep 0.1; done; exit 1");
    }

    private void control(java.util.function.IntConsumer embedded, String postgres, String mariadb)
            throws IOException, InterruptedException {
        boolean isPostgres = switch (name) {
            case "postgres" -> true;
            case "mariadb" -> false;
            default -> throw new IllegalStateException("SQLite has no server to stop");
        };
        int port = isPostgres ? 5432 : 3306;
        if (TestServers.embedded(port)) {
            embedded.accept(port);
        } else {
            shell(isPostgres ? postgres : mariadb);
        }
    }

    private static void shell(String command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("sh", "-c", command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException(command + " failed: " + out);
        }
    }

    /** Waits up to {@code timeout} for {@code condition}. */
    static void await(BooleanSupplier condition, Duration timeout, String what) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("after " + timeout.toSeconds() + " s: " + what);
            }
            Thread.sleep(200);
        }
    }
}
