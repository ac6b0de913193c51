package dev.inbox.dialect;

import dev.inbox.InboxException;
import java.sql.Connection;
import java.sql.SQLException;
import org.postgresql.PGConnection;

/**
 * Whether pgjdbc names statements on the server (after {@code prepareThreshold} executions, 5 by
 * default), read through the driver's own API. Kept apart from {@link PostgresDialect} so the
 * driver's classes load only where PostgreSQL is used.
 */
final class PgServerPrepares {
    private PgServerPrepares() {}

    /**
     * Refuses a connection that would prepare statements on the server: behind transaction pooling
     * a named statement lives in one server session, and the next transaction runs in another,
     * where it is missing ("prepared statement S_1 does not exist") or another client's is there
     * already ("already exists"); a settlement failing so gives its row to another claim.
     */
    static void refuseNamedStatements(Connection connection) throws SQLException {
        if (!connection.isWrapperFor(PGConnection.class)) {
            throw new InboxException(InboxException.Kind.DECLARATION, "the broker is declared to be behind a"
                    + " transaction pooler (connectionPooler TRANSACTION), and its connections are not pgjdbc's,"
                    + " so Inbox cannot tell whether they prepare statements on the server: connect through pgjdbc"
                    + " with prepareThreshold=0");
        }
        int threshold = connection.unwrap(PGConnection.class).getPrepareThreshold();
        if (threshold > 0) {
            throw new InboxException(InboxException.Kind.DECLARATION, "the broker is declared to be behind a"
                    + " transaction pooler (connectionPooler TRANSACTION, PgBouncer's pool_mode=transaction), and"
                    + " pgjdbc prepares a statement on the server after " + threshold + " executions"
                    + " (prepareThreshold=" + threshold + "), a statement the next transaction's server session"
                    + " lacks: add prepareThreshold=0 to the JDBC URL or the data source's properties, or pool"
                    + " sessions (pool_mode=session, connectionPooler SESSION)");
        }
    }
}
