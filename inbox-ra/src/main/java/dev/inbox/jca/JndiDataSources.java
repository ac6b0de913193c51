package dev.inbox.jca;

import dev.inbox.InboxException;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;

/** Data sources bound in JNDI, as the adapter (for message-driven beans) and the CDI extension look them up. */
public final class JndiDataSources {
    private JndiDataSources() {
    }

    /**
     * The data source at {@code name}.
     *
     * @param remedy what to change when nothing, or no data source, is bound there; ends the message
     * @throws InboxException {@code CONNECT}, naming the name, what the server said and the remedy
     */
    public static DataSource lookup(String name, String remedy) {
        try {
            return (DataSource) new InitialContext().lookup(name);
        } catch (NamingException | ClassCastException e) {
            throw new InboxException(InboxException.Kind.CONNECT, "no data source at JNDI name " + name + " ("
                    + e.getMessage() + "): " + remedy);
        }
    }
}
