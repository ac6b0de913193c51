package dev.inbox;

/**
 * What stands between the broker and its database, as the broker is told (a client cannot tell
 * PgBouncer's pooling modes apart): {@code InboxBroker.connectionPooler(ConnectionPooler.TRANSACTION)},
 * or {@code inbox.connection-pooler=transaction} in MicroProfile Config.
 */
public enum ConnectionPooler {
    /** The driver reaches the database itself, or through a pool of its own process. */
    NONE,
    /**
     * A pooler that gives each client connection one server session for as long as it lasts
     * (PgBouncer's {@code pool_mode=session}): every claim form and LISTEN work as without it.
     */
    SESSION,
    /**
     * A pooler that gives each transaction whichever server session is free (PgBouncer's
     * {@code pool_mode=transaction}), so nothing of a session outlives a transaction: the advisory
     * form (session locks) is refused, a table's declared isolation too (the driver sets it for the
     * session), PostgreSQL's driver must not prepare statements on the server
     * ({@code prepareThreshold=0}), and subscriptions wake by polling instead of LISTEN.
     */
    TRANSACTION;

    /**
     * The pooler a setting names ({@code none}, {@code session} or {@code transaction}, in any case).
     *
     * @param setting names the setting in the message ({@code MicroProfile Config key inbox.connection-pooler})
     * @throws InboxException {@code DECLARATION} naming the setting and the values it takes
     */
    public static ConnectionPooler parse(String setting, String text) {
        String name = text == null ? "" : text.trim().toUpperCase(java.util.Locale.ROOT);
        for (ConnectionPooler pooler : values()) {
            if (pooler.name().equals(name)) {
                return pooler;
            }
        }
        throw new InboxException(InboxException.Kind.DECLARATION, setting + " = " + text + " names no pooler: give"
                + " none, session (PgBouncer's pool_mode=session) or transaction (pool_mode=transaction)");
    }
}
