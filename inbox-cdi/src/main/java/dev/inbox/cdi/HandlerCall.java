package dev.inbox.cdi;

import dev.inbox.BatchHandler;
import dev.inbox.Delivery;
import dev.inbox.Handler;
import dev.inbox.Outcome;
import jakarta.enterprise.context.control.RequestContextController;
import jakarta.enterprise.inject.Instance;
import java.lang.invoke.MethodHandle;
import java.util.List;

/**
 * Calls one handler method on its bean, resolved once: the bean's contextual reference and the
 * method handle. Each call runs in an active request context, so request-scoped beans the handler
 * uses work on the adapter's threads too.
 */
final class HandlerCall<T> implements Handler<T>, BatchHandler<T> {
    private final HandlerMethod handler;
    /** The method bound to its bean, taking its arguments as one array: (Object[]) Object. */
    private final MethodHandle method;
    private final boolean returnsVoid;
    private final Instance<RequestContextController> requestContexts;

    HandlerCall(HandlerMethod handler, Object bean, Instance<RequestContextController> requestContexts) {
        this.handler = handler;
        this.requestContexts = requestContexts;
        this.returnsVoid = handler.method().getReturnType() == void.class;
        try {
            this.method = BeanMethods.bind(handler.method(), bean);
        } catch (IllegalAccessException e) {
            throw HandlerMethod.problem(handler.method(), "cannot be called by Inbox (" + e.getMessage()
                    + "): make it and its class public");
        }
    }

    @Override
    public Outcome handle(T payload, Delivery delivery) throws Exception {
        return (Outcome) call(payload, delivery, Outcome.ack());
    }

    @Override
    @SuppressWarnings("unchecked")
    public List<Outcome> handle(List<T> payloads, List<Delivery> deliveries) throws Exception {
        return (List<Outcome>) call(payloads, deliveries, BatchHandler.all(payloads, Outcome.ack()));
    }

    /** Calls the method; a void method acks on return. */
    private Object call(Object payload, Object delivery, Object onVoid) throws Exception {
        RequestContextController request = requestContexts.get();
        boolean activated = request.activate();
        try {
            Object result = (Object) method.invokeExact(handler.arguments(payload, delivery));
            return returnsVoid ? onVoid : result;
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        } finally {
            if (activated) {
                request.deactivate();
            }
            requestContexts.destroy(request);
        }
    }
}
