package dev.inbox.cdi;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;

/** Bean methods as Inbox calls them from the adapter's threads. */
final class BeanMethods {
    private BeanMethods() {
    }

    /**
     * {@code method} bound to {@code bean}, taking its arguments as one array: {@code (Object[]) Object}.
     *
     * @throws IllegalAccessException where the method or its class is not public
     */
    static MethodHandle bind(Method method, Object bean) throws IllegalAccessException {
        return MethodHandles.publicLookup().unreflect(method).bindTo(bean)
                .asSpreader(Object[].class, method.getParameterCount())
                .asType(MethodType.methodType(Object.class, Object[].class));
    }
}
