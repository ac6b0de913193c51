package dev.inbox.internal.form;

import dev.inbox.spi.DeliveryTransactions;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

/**
 * A transactional delivery's transaction from {@link DeliveryTransactions}: in the lease and
 * advisory lock forms one of its own, the claim holding the row apart from it; in the row lock
 * form under JTA the one its claim ran in. The ack settles inside it just before its commit.
 */
final class OwnTransaction implements HandlerTransaction {
    private static final System.Logger LOG = System.getLogger(OwnTransaction.class.getName());

    /** Settles the ack through the transaction's connection. */
    @FunctionalInterface
    interface AckIn {
        void ack(Connection transaction, Instant now) throws SQLException;
    }

    /** Lets the claim give up what it kept for the row until the commit. */
    @FunctionalInterface
    interface AfterCommit {
        void committed() throws SQLException;
    }

    private final DeliveryTransactions.Open open;
    private final AckIn ackIn;
    private final AfterCommit afterCommit;

    OwnTransaction(DeliveryTransactions.Open open, AckIn ackIn, AfterCommit afterCommit) {
        this.open = open;
        this.ackIn = ackIn;
        this.afterCommit = afterCommit;
    }

    @Override
    public Connection connection() {
        return open.connection();
    }

    @Override
    public boolean locksDatabase() {
        return open.locksDatabase();
    }

    @Override
    public void commitAck(Instant now) throws Exception {
        ackIn.ack(open.connection(), now);
        open.commit();
        try {
            afterCommit.committed();
        } catch (SQLException | RuntimeException e) {
            LOG.log(Level.DEBUG, "releasing a row after its commit failed; its session ends", e);
        }
    }

    @Override
    public void rollback() throws Exception {
        open.rollback();
    }

    @Override
    public void close() {
        open.close();
    }
}
