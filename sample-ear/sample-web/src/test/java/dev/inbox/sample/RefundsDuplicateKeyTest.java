package dev.inbox.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.inbox.testdb.TestServers;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * The refunds handler drops a refund recorded twice, and only that: a connection lost under it
 * fails the attempt, which comes again, instead of dead-lettering a refund that was never recorded.
 */
class RefundsDuplicateKeyTest {

    @Test
    void onSqliteADuplicateIsOneAndAClosedConnectionIsNot() throws SQLException {
        Connection c = DriverManager.getConnection("jdbc:sqlite::memory:");
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE refunds (order_id INTEGER PRIMARY KEY)");
            s.execute("INSERT INTO refunds VALUES (42)");
            assertThat(Refunds.duplicateKey(catchThrowableOfType(SQLException.class,
                    () -> s.execute("INSERT INTO refunds VALUES (42)")))).isTrue();
        }
        c.close();
        assertThat(Refunds.duplicateKey(catchThrowableOfType(SQLException.class, c::createStatement))).isFalse();
    }

    @Test
    void onPostgresADuplicateIsOneAndAKilledConnectionIsNot() throws SQLException {
        // Where no URL is given and nothing answers at the local address, an embedded server starts there.
        String given = System.getenv("INBOX_TEST_POSTGRES_URL");
        String url = given != null ? given
                : TestServers.orEmbedded("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("CREATE TEMPORARY TABLE refunds (order_id BIGINT PRIMARY KEY)");
            s.execute("INSERT INTO refunds VALUES (42)");
            assertThat(Refunds.duplicateKey(catchThrowableOfType(SQLException.class,
                    () -> s.execute("INSERT INTO refunds VALUES (42)")))).isTrue();
            SQLException killed = catchThrowableOfType(SQLException.class,
                    () -> s.execute("SELECT pg_terminate_backend(pg_backend_pid())"));
            assertThat((Object) killed).isNotNull();
            assertThat(Refunds.duplicateKey(killed)).as(killed.getSQLState() + " " + killed.getMessage()).isFalse();
        }
    }
}
