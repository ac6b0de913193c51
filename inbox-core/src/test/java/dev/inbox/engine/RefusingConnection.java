package dev.inbox.engine;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/** A connection that refuses to prepare some statements while told to: a statement failing on the server. */
final class RefusingConnection {

    private RefusingConnection() {}

    /**
     * {@code connection}, on which preparing a statement whose text {@code refused} matches fails
     * with {@code message} while {@code refusing} says so.
     */
    static Connection of(Connection connection, BooleanSupplier refusing, Predicate<String> refused, String message) {
        return (Connection) Proxy.newProxyInstance(RefusingConnection.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement") && refusing.getAsBoolean()
                            && refused.test((String) args[0])) {
                        throw new SQLException(message);
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
