package dev.inbox.internal.jdbc;

import dev.inbox.InboxSpec;
import dev.inbox.SqliteMode;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.TableShape;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Delivery transactions on a database whose write transactions lock it whole (SQLite), where the
 * transaction may begin without the lock (a server's JTA data source begins SQLite transactions
 * DEFERRED): each takes the write lock with a statement that changes nothing before its handler
 * runs, as the table's mode (IMMEDIATE unless declared) asks. While it holds the lock no claim can
 * take its row, so its lease needs no keeping. A table that declares DEFERRED runs as begun, and the
 * lease keeper keeps its lease.
 *
 * <p>Such a transaction holds the lock from its begin to its end, so it takes its turn at the
 * process's write gate before it begins and keeps it to its end: the engine's other writers
 * (claims, acks, publishes, other deliveries) wait for it in line, and the next is woken as it
 * ends. Left to SQLite's busy handler, the writer that had waited longest looked for the lock least
 * often, and a publish behind deliveries that followed each other at once failed after the busy
 * timeout.
 */
public final class WriteLockedDeliveryTransactions implements DeliveryTransactions {
    private final DeliveryTransactions transactions;
    private final Database database;
    /** The statement that takes the lock, by table. */
    private final Map<String, String> statements = new ConcurrentHashMap<>();

    public WriteLockedDeliveryTransactions(DeliveryTransactions transactions, Database database) {
        this.transactions = transactions;
        this.database = database;
    }

    @Override
    public Open begin(InboxSpec table) throws Exception {
        if (table.mode() == SqliteMode.DEFERRED) {
            return transactions.begin(table); // takes the lock at its first write, if it writes
        }
        WriteGate.Turn turn = database.writeTurn();
        Open open;
        try {
            open = transactions.begin(table);
        } catch (Exception | Error e) {
            turn.close();
            throw e;
        }
        if (!open.locksDatabase()) {
            takeLock(open, table, turn);
        }
        return new HoldingTurn(open, turn);
    }

    /** Takes the write lock with a statement that changes nothing; on a failure ends all. */
    private void takeLock(Open open, InboxSpec table, WriteGate.Turn turn) throws SQLException {
        Dialect dialect = database.dialect();
        String sql = statements.computeIfAbsent(table.table(),
                name -> dialect.takeWriteLock(new TableShape(table, dialect::quote, Map.of())));
        try (Statement statement = open.connection().createStatement()) {
            statement.executeUpdate(sql);
        } catch (SQLException | RuntimeException e) {
            try {
                open.rollback();
            } catch (Exception rollback) {
                e.addSuppressed(rollback);
            } finally {
                try {
                    open.close();
                } finally {
                    turn.close();
                }
            }
            throw e;
        }
    }

    @Override
    public boolean afterCommit(Runnable action) {
        return transactions.afterCommit(action);
    }

    @Override
    public boolean callerInTransaction() {
        return transactions.callerInTransaction();
    }

    @Override
    public boolean boundToThread() {
        return transactions.boundToThread();
    }

    /** A delivery transaction that holds the database's write lock and its turn at the gate until it ends. */
    private record HoldingTurn(Open open, WriteGate.Turn turn) implements Open {
        @Override
        public Connection connection() {
            return open.connection();
        }

        @Override
        public void commit() throws Exception {
            open.commit();
        }

        @Override
        public void rollback() throws Exception {
            open.rollback();
        }

        @Override
        public boolean locksDatabase() {
            return true;
        }

        @Override
        public void close() {
            try {
                open.close();
            } finally {
                turn.close();
            }
        }
    }
}
