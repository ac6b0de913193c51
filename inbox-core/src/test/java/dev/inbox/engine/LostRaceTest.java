package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What the dialects take for a lost race (a transaction rolled back for a concurrent one that won,
 * which the engine runs again rather than report), on the real databases: a deadlock's victim on
 * MariaDB and MySQL (1213, also how a Galera node reports a lost certification), a serialization
 * failure on PostgreSQL; and not a duplicate key.
 */
class LostRaceTest {
    private static final String TABLE = "lost_race_rows";

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"POSTGRES", "MARIADB", "CONNECTOR_J"})
    void theLoserOfAConcurrentTransactionIsALostRaceAndADuplicateKeyIsNot(TestDatabase db) throws Exception {
        db.execute("DROP TABLE IF EXISTS " + TABLE, "CREATE TABLE " + TABLE + " (id INT PRIMARY KEY, v INT)",
                "INSERT INTO " + TABLE + " VALUES (1, 0), (2, 0)");
        SQLException lost = db.mysqlFamily() ? deadlockVictim(db) : serializationFailure(db);
        assertThat(db.dialect().lostRace(lost)).as("lost race: " + lost.getMessage()).isTrue();
        try (Connection c = DriverManager.getConnection(db.url()); Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO " + TABLE + " VALUES (1, 0)");
            throw new AssertionError("a duplicate key was inserted");
        } catch (SQLException duplicate) {
            assertThat(db.dialect().lostRace(duplicate)).as("a duplicate key: " + duplicate.getMessage()).isFalse();
        }
    }

    /** Two transactions that update rows 1 and 2 in opposite orders: InnoDB rolls one back. */
    private static SQLException deadlockVictim(TestDatabase db) throws Exception {
        try (Connection a = DriverManager.getConnection(db.url()); Connection b = DriverManager.getConnection(db.url())) {
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            update(a, 1);
            update(b, 2);
            List<SQLException> failures = new ArrayList<>();
            CompletableFuture<SQLException> first = CompletableFuture.supplyAsync(() -> tryUpdate(a, 2));
            Thread.sleep(200); // a waits for b's row
            SQLException second = tryUpdate(b, 1);
            for (SQLException e : new SQLException[] {first.get(30, TimeUnit.SECONDS), second}) {
                if (e != null) {
                    failures.add(e);
                }
            }
            a.rollback();
            b.rollback();
            assertThat(failures).as("the deadlock's victims").hasSize(1);
            return failures.get(0);
        }
    }

    /** At REPEATABLE READ, an update of a row another transaction changed since the snapshot. */
    private static SQLException serializationFailure(TestDatabase db) throws SQLException {
        try (Connection a = DriverManager.getConnection(db.url()); Connection b = DriverManager.getConnection(db.url())) {
            a.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            a.setAutoCommit(false);
            try (Statement s = a.createStatement()) {
                s.executeQuery("SELECT v FROM " + TABLE + " WHERE id = 1").close();
            }
            update(b, 1);
            SQLException e = tryUpdate(a, 1);
            a.rollback();
            if (e == null) {
                throw new AssertionError("the update of a row changed since the snapshot took effect");
            }
            return e;
        }
    }

    private static SQLException tryUpdate(Connection c, int id) {
        try {
            update(c, id);
            return null;
        } catch (SQLException e) {
            return e;
        }
    }

    private static void update(Connection c, int id) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE " + TABLE + " SET v = v + 1 WHERE id = " + id);
        }
    }
}
