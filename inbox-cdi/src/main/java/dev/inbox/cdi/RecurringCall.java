package dev.inbox.cdi;

import jakarta.enterprise.context.control.RequestContextController;
import jakarta.enterprise.inject.Instance;
import java.lang.invoke.MethodHandle;
import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * Calls a recurring method on its bean for one occurrence, on the adapter's thread but in the
 * application's context (its contextual executor runs the call in place) and an active request
 * context, as handlers are called.
 */
final class RecurringCall implements Function<Instant, Object> {
    private final RecurringMethod recurring;
    /** The method bound to its bean, taking its arguments as one array: (Object[]) Object. */
    private final MethodHandle method;
    private final Instance<RequestContextController> requestContexts;
    private final Executor context;

    RecurringCall(RecurringMethod recurring, Object bean, Instance<RequestContextController> requestContexts,
            Executor context) {
        this.recurring = recurring;
        this.requestContexts = requestContexts;
        this.context = context;
        try {
            this.method = BeanMethods.bind(recurring.method(), bean);
        } catch (IllegalAccessException e) {
            throw RecurringMethod.problem(recurring.method(), "cannot be called by Inbox (" + e.getMessage()
                    + "): make it and its class public");
        }
    }

    @Override
    public Object apply(Instant due) {
        Object[] result = new Object[1];
        Throwable[] failure = new Throwable[1];
        context.execute(() -> {
            RequestContextController request = requestContexts.get();
            boolean activated = request.activate();
            try {
                result[0] = (Object) method.invokeExact(recurring.arguments(due));
            } catch (Throwable t) {
                failure[0] = t;
            } finally {
                if (activated) {
                    request.deactivate();
                }
                requestContexts.destroy(request);
            }
        });
        if (failure[0] instanceof RuntimeException e) {
            throw e;
        }
        if (failure[0] instanceof Error e) {
            throw e;
        }
        if (failure[0] != null) {
            throw new IllegalStateException("recurring method " + recurring.describe() + " failed: " + failure[0],
                    failure[0]);
        }
        return result[0];
    }
}
