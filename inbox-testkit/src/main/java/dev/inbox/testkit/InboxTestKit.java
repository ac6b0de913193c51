package dev.inbox.testkit;

import dev.inbox.InboxException;
import dev.inbox.Publisher;
import dev.inbox.ShutdownReport;
import dev.inbox.Subscription;
import dev.inbox.engine.InboxBroker;
import dev.inbox.internal.task.Waiting;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * Runs subscriptions and publishers in-process, without a server, on an in-memory SQLite database
 * or any DataSource, so handlers can be unit-tested and tables read after each publish.
 *
 * <pre>{@code
 * try (InboxTestKit kit = InboxTestKit.sqlite()) {
 *     kit.execute("CREATE TABLE thumbnail_jobs (id INTEGER PRIMARY KEY, attempt INTEGER NOT NULL DEFAULT 1,"
 *             + " locked_until TEXT, payload BLOB NOT NULL)");
 *     kit.subscribe(Subscription.of("thumbnails", MakeThumbnail.class, Image.class, thumbnails::thumbnail)).start();
 *     kit.publisher("thumbnails", Image.class).publish(new Image("cat.png"));
 *     kit.awaitCount("thumbnail_jobs", 0);
 * }
 * }</pre>
 */
public final class InboxTestKit implements AutoCloseable {
    private static final Duration DEFAULT_WAIT = Duration.ofSeconds(30);

    private final DataSource dataSource;
    private final Connection anchor;
    private final InboxBroker broker;
    private ShutdownReport report;

    private InboxTestKit(DataSource dataSource, Connection anchor) {
        this.dataSource = dataSource;
        this.anchor = anchor;
        this.broker = InboxBroker.fromDataSource(dataSource).pollInterval(Duration.ofMillis(200));
    }

    /**
     * A fresh in-memory SQLite database (SQLite's {@code memdb} file system, shared by every
     * connection of this kit), gone when the kit closes. Needs {@code org.xerial:sqlite-jdbc}.
     */
    public static InboxTestKit sqlite() {
        String url = "jdbc:sqlite:file:/inbox-" + UUID.randomUUID() + "?vfs=memdb";
        try {
            SQLiteConfig config = new SQLiteConfig();
            config.setBusyTimeout(10_000);
            SQLiteDataSource dataSource = new SQLiteDataSource(config);
            dataSource.setUrl(url);
            // The memdb database lives while one connection to it is open.
            Connection anchor = dataSource.getConnection();
            return new InboxTestKit(dataSource, anchor);
        } catch (SQLException e) {
            throw new InboxException(InboxException.Kind.CONNECT, "the in-memory SQLite database did not open (is"
                    + " org.xerial:sqlite-jdbc on the test class path?): " + e.getMessage(), e);
        }
    }

    /** A kit on the application's DataSource (a test database); the kit never closes it. */
    public static InboxTestKit on(DataSource dataSource) {
        return new InboxTestKit(dataSource, null);
    }

    /** Configures the kit's broker before {@link #start()} (lease, poll interval, clock, dialect). */
    public InboxTestKit configure(Consumer<InboxBroker> settings) {
        settings.accept(broker);
        return this;
    }

    /** Runs DDL or any statement, each in its own transaction. */
    public InboxTestKit execute(String... statements) {
        try (Connection connection = dataSource.getConnection(); Statement s = connection.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("statement failed: " + e.getMessage(), e);
        }
        return this;
    }

    public InboxTestKit subscribe(Subscription<?> subscription) {
        broker.subscribe(subscription);
        return this;
    }

    public InboxTestKit route(String queue, Class<?> tableRecord) {
        broker.route(queue, tableRecord);
        return this;
    }

    /** Connects the broker and opens every subscription. */
    public InboxTestKit start() {
        broker.connect();
        return this;
    }

    public <T> Publisher<T> publisher(String queue, Class<T> payloadType) {
        return broker.publisher(queue, payloadType);
    }

    public InboxBroker broker() {
        return broker;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    /** The rows of a query, each a map from column label (lower case) to value. */
    public List<Map<String, Object>> query(String sql, Object... parameters) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement ps = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                ps.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                ResultSetMetaData meta = rs.getMetaData();
                List<Map<String, Object>> rows = new ArrayList<>();
                while (rs.next()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int c = 1; c <= meta.getColumnCount(); c++) {
                        row.put(meta.getColumnLabel(c).toLowerCase(java.util.Locale.ROOT), rs.getObject(c));
                    }
                    rows.add(row);
                }
                return rows;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("query failed: " + e.getMessage(), e);
        }
    }

    /** The number of rows in {@code table}. */
    public long count(String table) {
        Object n = query("SELECT COUNT(*) AS n FROM " + dev.inbox.Identifiers.checkTable(table)).get(0).get("n");
        return ((Number) n).longValue();
    }

    /** Waits up to 30 s until {@code table} holds {@code rows} rows. */
    public void awaitCount(String table, long rows) {
        await(() -> count(table) == rows, DEFAULT_WAIT,
                () -> "table " + table + " holds " + count(table) + " rows, not " + rows);
    }

    /** Waits until {@code condition} holds, failing with {@code message} after {@code timeout}. */
    public static void await(BooleanSupplier condition, Duration timeout, java.util.function.Supplier<String> message) {
        try {
            if (!Waiting.until(condition, timeout, Duration.ofMillis(10))) {
                throw new AssertionError("after " + timeout.toMillis() + " ms: " + message.get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting", e);
        }
    }

    /** Shuts the broker down and drops an in-memory database. */
    @Override
    public void close() {
        shutdown();
        if (anchor != null) {
            try {
                anchor.close();
            } catch (SQLException e) {
                // the in-memory database goes with the process anyway
            }
        }
    }

    /** Shuts the broker down and returns its report; the database stays readable until {@link #close()}. */
    public ShutdownReport shutdown() {
        if (report == null) {
            report = broker.shutdown(Duration.ofSeconds(10));
        }
        return report;
    }
}
