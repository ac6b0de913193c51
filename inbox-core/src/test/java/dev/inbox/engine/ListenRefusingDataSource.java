package dev.inbox.engine;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * A real PostgreSQL pool behind a connection pooler that refuses {@code LISTEN}, as poolers in
 * transaction mode do: every other statement reaches the database.
 */
final class ListenRefusingDataSource {
    private ListenRefusingDataSource() {}

    static DataSource over(DataSource pool) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = Delegation.call(pool, method, args);
                    return result instanceof Connection c && method.getName().equals("getConnection") ? refusing(c)
                            : result;
                });
    }

    private static Connection refusing(Connection connection) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    Object result = Delegation.call(connection, method, args);
                    return result instanceof Statement s && method.getName().equals("createStatement") ? refusing(s)
                            : result;
                });
    }

    private static Statement refusing(Statement statement) {
        return (Statement) Proxy.newProxyInstance(Statement.class.getClassLoader(), new Class<?>[] {Statement.class},
                (proxy, method, args) -> {
                    if (args != null && args.length > 0 && args[0] instanceof String sql
                            && sql.trim().toUpperCase().startsWith("LISTEN")) {
                        throw new SQLException("LISTEN is not supported by this pooler in transaction mode", "0A000");
                    }
                    return Delegation.call(statement, method, args);
                });
    }
}
