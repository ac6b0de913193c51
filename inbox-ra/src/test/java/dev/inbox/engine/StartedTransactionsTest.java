package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.Column;
import dev.inbox.InboxSpec;
import dev.inbox.engine.form.ConnectionSource;
import dev.inbox.engine.form.Transactions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * On MySQL and MariaDB the engine starts its transactions with {@code START TRANSACTION} and
 * leaves the connection in autocommit: a round trip fewer than switching autocommit off and on.
 * What such a transaction did not commit must never reach the pool's next borrower.
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
            Transactions.run(connection, db.dialect(), Connection.TRANSACTION_READ_COMMITTED, () -> {
                insert(connection, 1);
                return null;
            });
            assertThatThrownBy(() -> Transactions.run(connection, db.dialect(), -1, () -> {
                insert(connection, 2);
                insert(connection, 1); // a duplicate key: the work fails
                return null;
            })).isInstanceOf(SQLException.class);
            assertThat(connection.getAutoCommit()).isTrue();
            insert(connection, 5);
            assertThat(ids(db)).isEqualTo("1,5");
        }
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
