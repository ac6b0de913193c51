package dev.inbox.jca;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A pool that hands out a connection in the manual commit its last user left (GlassFish's and
 * Payara's did, after JTA transactions): the engine's borrow outside a transaction gets it in
 * autocommit, so its single statements commit; inside a transaction the server's state is left alone.
 */
class AutoCommitOnBorrowTest {
    private int status = Status.STATUS_NO_TRANSACTION;

    @Test
    void aConnectionLeftInManualCommitIsBorrowedInAutocommitOutsideATransaction() throws Exception {
        String url = "jdbc:sqlite:" + Files.createTempDirectory("inbox-ra-test").resolve("autocommit.db");
        try (Connection pooled = DriverManager.getConnection(url); Connection reader = DriverManager.getConnection(url)) {
            try (Statement s = pooled.createStatement()) {
                s.execute("CREATE TABLE t (x INTEGER)");
            }
            pooled.setAutoCommit(false); // as the last transaction left it
            DataSource borrowed = AutoCommitOnBorrow.of(onlyConnection(pooled), registry());

            Connection connection = borrowed.getConnection();
            assertThat(connection.getAutoCommit()).isTrue();
            try (Statement s = connection.createStatement()) {
                s.executeUpdate("INSERT INTO t VALUES (1)");
            }
            try (Statement s = reader.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM t")) {
                rs.next();
                assertThat(rs.getInt(1)).as("the write, committed as it ran").isEqualTo(1);
            }

            pooled.setAutoCommit(false);
            status = Status.STATUS_ACTIVE;
            assertThat(borrowed.getConnection().getAutoCommit()).as("in a transaction: the server's to manage").isFalse();
            pooled.rollback();
        }
    }

    @Test
    void aDataSourceIsWrappedOnce() throws Exception {
        DataSource once = AutoCommitOnBorrow.of(onlyConnection(null), registry());
        assertThat(AutoCommitOnBorrow.of(once, registry())).isSameAs(once);
    }

    private static DataSource onlyConnection(Connection connection) {
        return (DataSource) Proxy.newProxyInstance(AutoCommitOnBorrowTest.class.getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> method.getName().equals("getConnection")
                        ? connection : null);
    }

    /** A registry that answers only the status this test sets. */
    private TransactionSynchronizationRegistry registry() {
        return (TransactionSynchronizationRegistry) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {TransactionSynchronizationRegistry.class}, (proxy, method, args) -> {
                    if (!method.getName().equals("getTransactionStatus")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    return status;
                });
    }
}
