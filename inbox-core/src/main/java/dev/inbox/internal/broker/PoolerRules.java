package dev.inbox.internal.broker;

import dev.inbox.ClaimForm;
import dev.inbox.ConnectionPooler;
import dev.inbox.InboxException.Kind;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Isolation;
import dev.inbox.Subscription;
import dev.inbox.spi.Dialect;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * What the declared {@link ConnectionPooler} allows, decided once at connect. Behind transaction
 * pooling (PgBouncer's {@code pool_mode=transaction}) nothing a session holds outlives a
 * transaction, so what the engine would keep in a session is refused or done without: a driver
 * that names statements on the server (the dialect's check), the advisory form's session locks,
 * a table's declared isolation (JDBC sets it for the session, {@code SET SESSION CHARACTERISTICS}),
 * and LISTEN, for which subscriptions poll. Without a pooler, or with session pooling, everything
 * is allowed.
 */
final class PoolerRules {
    private static final System.Logger LOG = System.getLogger(PoolerRules.class.getName());

    private final boolean perTransaction;

    PoolerRules(ConnectionPooler pooler) {
        this.perTransaction = pooler == ConnectionPooler.TRANSACTION;
    }

    /** Refuses a connection whose driver keeps state in the session between transactions. */
    void checkConnection(Connection connection, Dialect dialect) throws SQLException {
        if (perTransaction) {
            dialect.checkTransactionPooling(connection);
        }
    }

    /** Refuses a subscription whose table needs a session of its own. */
    void checkSubscription(Subscription<?> subscription) {
        if (!perTransaction) {
            return;
        }
        InboxSpec spec = subscription.table();
        if (spec.claimForm() == ClaimForm.ADVISORY) {
            throw new InboxException(Kind.DECLARATION, "queue " + subscription.queue() + ": table " + spec.table()
                    + " uses the advisory lock form, whose locks belong to a database session, and the broker is"
                    + " declared to be behind a transaction pooler (connectionPooler TRANSACTION, PgBouncer's"
                    + " pool_mode=transaction), which gives each transaction whichever session is free, so a lock"
                    + " would be held by a session the next statement does not reach: use the lease or row lock form"
                    + " (a locked_until column, or neither column), or session pooling (pool_mode=session,"
                    + " connectionPooler SESSION)");
        }
        if (spec.isolation() != Isolation.DEFAULT) {
            throw new InboxException(Kind.DECLARATION, "queue " + subscription.queue() + ": table " + spec.table()
                    + " declares isolation " + spec.isolation() + ", which the JDBC driver sets for the session"
                    + " (SET SESSION CHARACTERISTICS), and the broker is declared to be behind a transaction pooler"
                    + " (connectionPooler TRANSACTION, PgBouncer's pool_mode=transaction), where the next transaction"
                    + " runs in another session: leave the isolation DEFAULT and give the database's role the level"
                    + " (ALTER ROLE .. SET default_transaction_isolation), or use session pooling");
        }
    }

    /** True where a subscription may listen; else it polls. */
    boolean listens() {
        return !perTransaction;
    }

    /** Says, once, that {@code queues} poll instead of listening. */
    void polling(List<String> queues) {
        if (!queues.isEmpty()) {
            LOG.log(Level.WARNING, "queues {0} set listen-notify, but the broker is declared to be behind a"
                    + " transaction pooler (connectionPooler TRANSACTION, PgBouncer''s pool_mode=transaction), where a"
                    + " LISTEN stays with a session the notifications do not reach: they wake by their poll interval"
                    + " and the publishes of this process instead; for LISTEN connect without the pooler or through"
                    + " session pooling", queues);
        }
    }
}
