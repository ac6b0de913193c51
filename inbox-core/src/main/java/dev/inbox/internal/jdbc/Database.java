package dev.inbox.internal.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.InboxException.Kind;
import dev.inbox.InboxException;
import dev.inbox.dialect.MySqlDialect;
import dev.inbox.dialect.PostgresDialect;
import dev.inbox.dialect.SqliteDialect;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.ServiceLoader;
import javax.sql.DataSource;

/**
 * The database a broker reaches: its connections (a pool the broker built and owns, or the
 * application's DataSource, never closed here), the dialect resolved from what it is, and how it
 * is named in messages, with any password removed.
 */
public final class Database implements ConnectionSource {
    private static final System.Logger LOG = System.getLogger(Database.class.getName());

    private final DataSource dataSource;
    private final HikariDataSource owned;
    private final Dialect dialect;
    private final String where;
    private final String password;
    /** The URL the driver reports: two brokers on the same database (the same SQLite file) have the same. */
    private final String identity;
    /** Where one writer at a time locks the whole database (SQLite): the engine's writers take turns here. */
    private final WriteGate writeGate;
    /** The hot path's statements kept on the connections of the pool the broker built; null for the application's. */
    private final KeptStatements kept;

    private Database(DataSource dataSource, HikariDataSource owned, Dialect dialect, String where, String password,
            String identity) {
        this.dataSource = dataSource;
        this.owned = owned;
        this.dialect = dialect;
        this.where = where;
        this.password = password;
        this.identity = identity;
        this.writeGate = dialect.capabilities().writeLocksDatabase() ? WriteGate.of(identity) : null;
        this.kept = owned == null ? null : new KeptStatements();
    }

    /**
     * Builds the pool (or takes the application's DataSource), takes one connection to check the
     * database is reachable, and resolves its dialect.
     *
     * @throws InboxException {@code URL}, {@code CONNECT} or {@code BACKEND}
     */
    public static Database connect(String url, Properties driverProperties, DataSource applicationDataSource,
            int connectionLimit, List<Dialect> dialects) {
        String password = driverProperties == null ? null : driverProperties.getProperty("password");
        String where = url != null ? Redaction.redact(url, password) : "the application's DataSource";
        HikariDataSource owned = null;
        DataSource dataSource = applicationDataSource;
        Dialect dialect = null;
        try {
            if (dataSource == null) {
                // One connection straight from the driver: a database out of reach fails now, with its reason.
                dialect = probe(url, driverProperties, dialects, where);
                owned = pool(url, driverProperties, connectionLimit, dialect);
                dataSource = owned;
            }
            try (Connection connection = dataSource.getConnection()) {
                DatabaseMetaData metaData = connection.getMetaData();
                if (dialect == null) {
                    dialect = resolve(dialects, metaData);
                }
                return new Database(dataSource, owned, dialect, where, password, metaData.getURL());
            }
        } catch (SQLException e) {
            close(owned);
            throw unreachable(where, password, e);
        } catch (RuntimeException e) {
            close(owned);
            throw e;
        }
    }

    private static Dialect probe(String url, Properties driverProperties, List<Dialect> dialects, String where)
            throws SQLException {
        Driver driver;
        try {
            driver = DriverManager.getDriver(url);
        } catch (SQLException e) {
            throw new InboxException(Kind.URL, "no JDBC driver on the class path reads the URL " + where
                    + ": check its scheme (jdbc:postgresql://, jdbc:mariadb://, jdbc:mysql://, jdbc:sqlite:) and that"
                    + " the driver's jar is deployed");
        }
        try (Connection probe = driver.connect(url, driverProperties)) {
            if (probe == null) {
                throw new InboxException(Kind.URL, "the JDBC driver does not accept the URL " + where);
            }
            return resolve(dialects, probe.getMetaData());
        }
    }

    private static HikariDataSource pool(String url, Properties driverProperties, int connectionLimit,
            Dialect dialect) {
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(url);
        pool.setDataSourceProperties(driverProperties);
        pool.setMaximumPoolSize(connectionLimit);
        pool.setMinimumIdle(Math.min(2, connectionLimit));
        pool.setPoolName("inbox");
        if (dialect.capabilities().poolIsolation() >= 0) {
            pool.setTransactionIsolation(isolationName(dialect.capabilities().poolIsolation()));
        }
        if (!dialect.connectionInitSql().isEmpty()) {
            pool.setConnectionInitSql(String.join("; ", dialect.connectionInitSql()));
        }
        return new HikariDataSource(pool);
    }

    /** The name HikariCP takes for a {@link Connection} isolation constant. */
    public static String isolationName(int level) {
        return switch (level) {
            case Connection.TRANSACTION_READ_UNCOMMITTED -> "TRANSACTION_READ_UNCOMMITTED";
            case Connection.TRANSACTION_READ_COMMITTED -> "TRANSACTION_READ_COMMITTED";
            case Connection.TRANSACTION_REPEATABLE_READ -> "TRANSACTION_REPEATABLE_READ";
            case Connection.TRANSACTION_SERIALIZABLE -> "TRANSACTION_SERIALIZABLE";
            case Connection.TRANSACTION_NONE -> "TRANSACTION_NONE";
            default -> throw new IllegalArgumentException("no isolation level " + level);
        };
    }

    /** The user's dialects first, then those listed as services, then the built-in ones. */
    private static Dialect resolve(List<Dialect> userDialects, DatabaseMetaData metaData) throws SQLException {
        List<Dialect> candidates = new ArrayList<>(userDialects);
        ServiceLoader.load(Dialect.class).forEach(candidates::add);
        candidates.add(new PostgresDialect());
        candidates.add(new MySqlDialect());
        candidates.add(new SqliteDialect());
        for (Dialect candidate : candidates) {
            if (candidate.serves(metaData)) {
                return candidate;
            }
        }
        throw new InboxException(Kind.BACKEND, "no dialect serves " + metaData.getDatabaseProductName() + " "
                + metaData.getDatabaseProductVersion() + ": Inbox serves PostgreSQL, MySQL 8.0.1+, MariaDB 10.6+ and"
                + " SQLite; for another database give the broker a dialect of your own (InboxBroker.dialect(..))");
    }

    private static InboxException unreachable(String where, String password, SQLException e) {
        return new InboxException(Kind.CONNECT, "the database at " + where + " is out of reach ("
                + Redaction.redact(e.getMessage(), password) + "): check the host, port, database name and"
                + " credentials, and that the server runs");
    }

    /** {@code CONNECT} for a failure to reach this database, naming it without its password. */
    public InboxException unreachable(SQLException e) {
        return unreachable(where, password, e);
    }

    @Override
    public Connection open() throws SQLException {
        return dataSource.getConnection();
    }

    /**
     * {@inheritDoc} Where the database takes one writer at a time, the engine's statements on a
     * borrowed connection (a lease claim, a batch of acks, a settlement: each a write) take turns
     * through the process's {@link WriteGate}.
     */
    @Override
    public <R> R use(Work<R> work) throws SQLException {
        return write(() -> ConnectionSource.super.use(work));
    }

    /** {@inheritDoc} Kept on the pool's connections where the broker built the pool. */
    @Override
    public <R> R prepared(Connection connection, Sql sql, OnStatement<R> work) throws SQLException {
        return kept == null ? ConnectionSource.super.prepared(connection, sql, work) : kept.run(connection, sql, work);
    }

    /** {@inheritDoc} Through the process's {@link WriteGate} where the database takes one writer at a time. */
    @Override
    public <R> R write(JdbcTransaction.Work<R> work) throws SQLException {
        return writeGate == null ? work.run() : writeGate.run(work);
    }

    /** True where the database takes one writer at a time and the engine's writers take turns in the process. */
    public boolean takesTurns() {
        return writeGate != null;
    }

    /**
     * The writers' turn, to close on the same thread, for a writer whose turn spans more than one
     * call (a delivery's transaction) or must come before another lock (a row's monitor); one that
     * waits for nothing where writers take no turns.
     */
    public WriteGate.Turn writeTurn() {
        return writeGate == null ? WriteGate.Turn.NONE : writeGate.take();
    }

    public Dialect dialect() {
        return dialect;
    }

    /** The database as messages name it: its URL without a password, or "the application's DataSource". */
    public String where() {
        return where;
    }

    /** Text with this database's password removed, and any password a URL in it carries. */
    public String redact(String text) {
        return Redaction.redact(text, password);
    }

    /** Names the database for locks kept in the process, so locks of two databases never meet. */
    public String identity() {
        return identity;
    }

    /** True when both reach the same database (for SQLite, the same file). */
    public boolean sameAs(Database other) {
        return identity != null && identity.equals(other.identity);
    }

    /** The pool's size when the broker built it; 0 for the application's DataSource. */
    public int poolSize() {
        return owned == null ? 0 : owned.getMaximumPoolSize();
    }

    /**
     * Opens up to {@code connections} in a pool the broker built (no more than it holds) and keeps
     * them open: the first drain, or one after a quiet spell, then finds its connections ready
     * instead of waiting on the claim path while the pool opens them one after another (and each
     * new session plans its statements again). The application's DataSource is left as it is set.
     * Where the database refuses some, that is logged and the broker goes on with those it has.
     */
    public void keepOpen(int connections) {
        if (owned == null) {
            return;
        }
        int keep = Math.min(connections, owned.getMaximumPoolSize());
        if (keep <= owned.getMinimumIdle()) {
            return; // a publisher's broker, or subscriptions that need no more than the pool keeps anyway
        }
        owned.getHikariConfigMXBean().setMinimumIdle(keep);
        List<Connection> opened = new ArrayList<>(keep);
        try {
            while (opened.size() < keep) {
                opened.add(owned.getConnection());
            }
        } catch (SQLException e) {
            LOG.log(System.Logger.Level.WARNING, "the pool opened {0} of the {1} connections the subscriptions may hold"
                    + " at once ({2}); claims and settlements open the others when they need them", opened.size(), keep,
                    redact(String.valueOf(e.getMessage())));
        } finally {
            for (Connection connection : opened) {
                try {
                    connection.close();
                } catch (SQLException e) {
                    // the pool discards a broken connection
                }
            }
        }
    }

    /** Closes a pool the broker built, never the application's. */
    public void close() {
        if (owned != null) {
            owned.close();
            kept.clear();
        }
    }

    private static void close(HikariDataSource pool) {
        if (pool != null) {
            pool.close();
        }
    }
}
