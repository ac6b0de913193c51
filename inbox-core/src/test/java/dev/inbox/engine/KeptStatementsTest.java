package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.internal.jdbc.KeptStatements;
import dev.inbox.internal.jdbc.Sql;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The hot path's statements stay prepared on a pool's physical connection, and never outlive their use's failure. */
class KeptStatementsTest {
    private final KeptStatements kept = new KeptStatements();
    private final Sql twice = new Sql("twice", "SELECT :n * 2");
    private HikariDataSource pool;

    @BeforeEach
    void pool(@TempDir Path dir) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:sqlite:" + dir.resolve("kept.db"));
        config.setMaximumPoolSize(1); // every borrow is the same physical connection
        pool = new HikariDataSource(config);
    }

    @AfterEach
    void close() {
        pool.close();
    }

    @Test
    void aStatementIsPreparedOnceForEveryBorrowOfItsConnection() throws SQLException {
        PreparedStatement first = useOnce(21, 42);
        PreparedStatement second = useOnce(5, 10);
        assertThat(second).isSameAs(first);
        // Prepared on the physical connection: the pool's proxy did not close it as the connection went back.
        assertThat(second.isClosed()).isFalse();
    }

    @Test
    void aStatementWhoseUseFailedIsClosedAndTheNextUsePreparesAnother() throws SQLException {
        PreparedStatement before = useOnce(1, 2);
        PreparedStatement[] failed = new PreparedStatement[1];
        try (Connection connection = pool.getConnection()) {
            assertThatThrownBy(() -> kept.run(connection, twice, ps -> {
                failed[0] = ps;
                throw new SQLException("the handler of the statement failed");
            })).hasMessageContaining("failed");
        }
        assertThat(failed[0]).isSameAs(before);
        assertThat(failed[0].isClosed()).isTrue();
        PreparedStatement after = useOnce(3, 6);
        assertThat(after).isNotSameAs(before);
        assertThat(after.isClosed()).isFalse();
    }

    @Test
    void aSecondUseOfTheSameStatementAtOnceHasOneOfItsOwn() throws SQLException {
        PreparedStatement[] inner = new PreparedStatement[1];
        PreparedStatement outer;
        try (Connection connection = pool.getConnection()) {
            outer = kept.run(connection, twice, ps -> {
                inner[0] = kept.run(connection, twice, nested -> {
                    assertThat(nested).isNotSameAs(ps);
                    assertThat(read(nested, 7)).isEqualTo(14);
                    return nested;
                });
                assertThat(read(ps, 2)).isEqualTo(4);
                return ps;
            });
        }
        // One of them is kept, the one whose use ended first; the other is closed as its use ends.
        assertThat(inner[0].isClosed()).isFalse();
        assertThat(outer.isClosed()).isTrue();
        assertThat(useOnce(4, 8)).isSameAs(inner[0]);
    }

    @Test
    void noBindingOrBatchIsLeftOverForTheNextUse() throws SQLException {
        try (Connection connection = pool.getConnection()) {
            kept.run(connection, twice, ps -> {
                twice.setInt(ps, "n", 3);
                return null; // bound and never run
            });
            kept.run(connection, twice, ps -> {
                // SQLite runs a statement with an unbound parameter as NULL.
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getObject(1)).isNull();
                }
                return null;
            });
        }
    }

    @Test
    void theStatementsOfAConnectionThePoolClosedAreForgotten() throws SQLException {
        PreparedStatement before = useOnce(1, 2);
        try (Connection connection = pool.getConnection()) {
            pool.evictConnection(connection); // closed as it goes back, on the pool's own thread
        }
        Connection physical = before.getConnection();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!physical.isClosed() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(physical.isClosed()).as("the evicted connection is closed").isTrue();
        PreparedStatement after = useOnce(2, 4);
        assertThat(after).isNotSameAs(before);
        assertThat(kept.connections()).isEqualTo(1);
    }

    private PreparedStatement useOnce(int n, int expected) throws SQLException {
        try (Connection connection = pool.getConnection()) {
            return kept.run(connection, twice, ps -> {
                assertThat(read(ps, n)).isEqualTo(expected);
                return ps;
            });
        }
    }

    private int read(PreparedStatement ps, int n) throws SQLException {
        twice.setInt(ps, "n", n);
        try (ResultSet rs = ps.executeQuery()) {
            assertThat(rs.next()).isTrue();
            return rs.getInt(1);
        }
    }
}
