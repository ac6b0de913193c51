package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.ClaimForm;
import dev.inbox.Column;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.internal.jdbc.ConnectionSource;
import dev.inbox.internal.jdbc.JdbcDeliveryTransactions;
import dev.inbox.internal.jdbc.JdbcTransaction;
import dev.inbox.spi.DeliveryTransactions;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * On MySQL and MariaDB the engine starts its transactions (deliveries, row lock claims) with
 * {@code START TRANSACTION} and leaves the connection in autocommit: a round trip fewer than
 * switching autocommit off and on. What such a transaction did not commit must never reach the
 * pool's next borrower.
 */
class StartedTransactionsTest {
    private static final String TABLE = "started_tx";

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "CONNECTOR_J"})
    void aDeliveryTransactionCommitsInAutocommitAndOneNeverEndedIsRolledBackBeforeTheConnectionGoesBack(
            TestDatabase db) throws Exception {
        db.execute("DROP TABLE IF EXISTS " + TABLE, "CREATE TABLE " + TABLE + " (id INT PRIMARY KEY) ENGINE=InnoDB");
        try (HikariDataSource pool = onePool(db)) {
            ConnectionSource connections = pool::getConnection;
            JdbcDeliveryTransactions transactions = new JdbcDeliveryTransactions(connections, db.dialect());
            InboxSpec spec = InboxSpec.table("jobs", Column.of("id"));

            DeliveryTransactions.Open committed = transactions.begin(spec);
            assertThat(committed.connection().getAutoCommit()).isTrue();
            insert(committed.connection(), 1);
            assertThat(db.count(TABLE)).isZero(); // not yet committed: another connection does not see it
            committed.commit();
            committed.close();
            assertThat(db.count(TABLE)).isEqualTo(1);

            DeliveryTransactions.Open rolledBack = transactions.begin(spec);
            insert(rolledBack.connection(), 2);
            rolledBack.rollback();
            rolledBack.close();

            DeliveryTransactions.Open abandoned = transactions.begin(spec);
            insert(abandoned.connection(), 3);
            abandoned.close(); // neither committed nor rolled back: a failure between the two

            // The pool's one connection, borrowed again: its write in autocommit is seen at once,
            // so no transaction was left open on it.
            try (Connection next = pool.getConnection()) {
                insert(next, 4);
            }
            assertThat(ids(db)).isEqualTo("1,4");
        }
    }

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "CONNECTOR_J"})
    void aTransactionWhoseWorkFailsIsRolledBackAndTheConnectionStaysInAutocommit(TestDatabase db) throws Exception {
        db.execute("DROP TABLE IF EXISTS " + TABLE, "CREATE TABLE " + TABLE + " (id INT PRIMARY KEY) ENGINE=InnoDB");
        try (HikariDataSource pool = onePool(db); Connection connection = pool.getConnection()) {
            JdbcTransaction.run(connection, db.dialect(), Connection.TRANSACTION_READ_COMMITTED, () -> {
                insert(connection, 1);
                return null;
            });
            assertThatThrownBy(() -> JdbcTransaction.run(connection, db.dialect(), -1, () -> {
                insert(connection, 2);
                insert(connection, 1); // a duplicate key: the work fails
                return null;
            })).isInstanceOf(SQLException.class);
            assertThat(connection.getAutoCommit()).isTrue();
            insert(connection, 5);
            assertThat(ids(db)).isEqualTo("1,5");
        }
    }

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "CONNECTOR_J"})
    void aRowLockClaimStartsItsTransactionWithAStatementAndNeverSwitchesAutocommit(TestDatabase db) {
        TestTable table = TestTable.of("started_claims", ClaimForm.ROW_LOCK, TestTable.Feature.ATTEMPT);
        table.create(db);
        AtomicInteger switchedOff = new AtomicInteger();
        InboxBroker broker = InboxBroker.fromDataSource(countingAutocommitOff(db.dataSource(), switchedOff))
                .pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.of("started", table.spec(), Job.class, (job, d) -> Outcome.ack()).batchSize(4)
                        .workers(2))
                .connect();
        try {
            broker.publisher("started", Job.class).publishAll(IntStream.range(0, 40).mapToObj(Job::new).toList());
            Eventually.await(() -> db.count(table.name()) == 0, Duration.ofSeconds(20),
                    () -> db.count(table.name()) + " left");
        } finally {
            broker.shutdown();
        }
        assertThat(switchedOff).as("connections switched out of autocommit").hasValue(0);
    }

    /**
     * Where the engine switches autocommit off (PostgreSQL), a delivery transaction closed without
     * a commit or a rollback is rolled back too: switching autocommit back on would commit it.
     */
    @Test
    void aSwitchedTransactionClosedWithoutEndingIsRolledBack() throws Exception {
        TestDatabase db = TestDatabase.POSTGRES;
        db.execute("DROP TABLE IF EXISTS " + TABLE, "CREATE TABLE " + TABLE + " (id INT PRIMARY KEY)");
        try (HikariDataSource pool = onePool(db)) {
            JdbcDeliveryTransactions transactions = new JdbcDeliveryTransactions(pool::getConnection, db.dialect());
            DeliveryTransactions.Open abandoned = transactions.begin(InboxSpec.table("jobs", Column.of("id")));
            assertThat(abandoned.connection().getAutoCommit()).isFalse();
            insert(abandoned.connection(), 3);
            abandoned.close();
            try (Connection next = pool.getConnection()) {
                insert(next, 4);
            }
        }
        assertThat(db.count(TABLE)).isEqualTo(1);
        assertThat(db.count(TABLE + " WHERE id = 4")).isEqualTo(1);
    }

    /** {@code pool}, counting each time one of its connections is switched out of autocommit. */
    private static DataSource countingAutocommitOff(DataSource pool, AtomicInteger switchedOff) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = Delegation.call(pool, method, args);
                    if (!(result instanceof Connection connection && method.getName().equals("getConnection"))) {
                        return result;
                    }
                    return Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                            (c, m, a) -> {
                                if (m.getName().equals("setAutoCommit") && Boolean.FALSE.equals(a[0])) {
                                    switchedOff.incrementAndGet();
                                }
                                return Delegation.call(connection, m, a);
                            });
                });
    }

    private static HikariDataSource onePool(TestDatabase db) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.url());
        config.setMaximumPoolSize(1);
        config.setPoolName("started-tx");
        return new HikariDataSource(config);
    }

    private static void insert(Connection connection, int id) throws SQLException {
        try (Statement s = connection.createStatement()) {
            s.executeUpdate("INSERT INTO " + TABLE + " (id) VALUES (" + id + ")");
        }
    }

    private static String ids(TestDatabase db) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT GROUP_CONCAT(id ORDER BY id) FROM " + TABLE)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
