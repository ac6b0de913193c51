package dev.inbox.engine;

import dev.inbox.InboxSpec;
import dev.inbox.SqliteMode;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.TableShape;
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
 */
final class WriteLockFirst implements DeliveryTransactions {
    private final DeliveryTransactions transactions;
    private final Dialect dialect;
    /** The statement that takes the lock, by table. */
    private final Map<String, String> statements = new ConcurrentHashMap<>();

    WriteLockFirst(DeliveryTransactions transactions, Dialect dialect) {
        this.transactions = transactions;
        this.dialect = dialect;
    }

    @Override
    public Open begin(InboxSpec table) throws Exception {
        Open open = transactions.begin(table);
        if (open.locksDatabase() || table.mode() == SqliteMode.DEFERRED) {
            return open;
        }
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
                open.close();
            }
            throw e;
        }
        return new ForwardingOpen(open) {
            @Override
            public boolean locksDatabase() {
                return true;
            }
        };
    }

    @Override
    public boolean afterCommit(Runnable action) {
        return transactions.afterCommit(action);
    }

    @Override
    public boolean boundToThread() {
        return transactions.boundToThread();
    }
}
