package dev.inbox.engine;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/** What the JDBC proxies of the tests share: a call passed on to the real object, its own exception thrown as is. */
final class Delegation {
    private Delegation() {}

    static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
