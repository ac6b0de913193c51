package dev.inbox.cdi;

import dev.inbox.Delivery;
import dev.inbox.Inbound;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.SubscriptionOption;
import jakarta.enterprise.inject.spi.AnnotatedMethod;
import jakarta.enterprise.inject.spi.AnnotatedParameter;
import jakarta.enterprise.inject.spi.Bean;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.List;

/**
 * A bean method with an {@code @Inbound} parameter, checked at deployment: what it takes, what
 * it returns, and the table its queue lives in. Every problem names the class, the method and what
 * to change.
 */
final class HandlerMethod {
    private final Bean<?> bean;
    private final Method method;
    private final Inbound inbound;
    private final InboxSpec table;
    private final Type payloadType;
    private final int payloadIndex;
    private final int deliveryIndex;
    private final boolean batch;

    private HandlerMethod(Bean<?> bean, Method method, Inbound inbound, InboxSpec table, Type payloadType,
            int payloadIndex, int deliveryIndex, boolean batch) {
        this.bean = bean;
        this.method = method;
        this.inbound = inbound;
        this.table = table;
        this.payloadType = payloadType;
        this.payloadIndex = payloadIndex;
        this.deliveryIndex = deliveryIndex;
        this.batch = batch;
    }

    /** The handler {@code annotated} declares, or null when it has no {@code @Inbound} parameter. */
    static HandlerMethod of(Bean<?> bean, AnnotatedMethod<?> annotated) {
        Method method = annotated.getJavaMember();
        List<? extends AnnotatedParameter<?>> parameters = annotated.getParameters();
        int payloadIndex = -1;
        for (AnnotatedParameter<?> p : parameters) {
            if (p.isAnnotationPresent(Inbound.class)) {
                if (payloadIndex >= 0) {
                    throw problem(method, "has two @Inbound parameters: keep @Inbound on the payload parameter only");
                }
                payloadIndex = p.getPosition();
            }
        }
        if (payloadIndex < 0) {
            return null;
        }
        Inbound inbound = parameters.get(payloadIndex).getAnnotation(Inbound.class);
        InboxSpec table;
        try {
            table = InboxSpec.of(inbound.table());
            table.claimForm();
        } catch (InboxException e) {
            throw problem(method, "names a table it cannot use (" + e.detail() + "): set @Inbound(table = ...) to a"
                    + " record annotated with @InboxTable");
        }
        if (!Modifier.isPublic(method.getModifiers()) || Modifier.isStatic(method.getModifiers())) {
            throw problem(method, "is not a public instance method: make it public so the container can call it");
        }
        Type declared = parameters.get(payloadIndex).getBaseType();
        Type element = listElement(declared);
        boolean batch = element != null;
        Type payloadType = batch ? element : declared;
        int deliveryIndex = -1;
        for (AnnotatedParameter<?> p : parameters) {
            if (p.getPosition() == payloadIndex) {
                continue;
            }
            Type type = p.getBaseType();
            boolean delivery = batch ? Delivery.class.equals(listElement(type)) : Delivery.class.equals(type);
            if (!delivery || deliveryIndex >= 0) {
                throw problem(method, "has parameter " + (p.getPosition() + 1) + " of type " + type.getTypeName()
                        + ", which Inbox cannot supply: a handler takes the @Inbound payload and optionally "
                        + (batch ? "a List<Delivery>" : "a Delivery"));
            }
            deliveryIndex = p.getPosition();
        }
        Type returns = method.getGenericReturnType();
        boolean returnsOutcome = batch ? Outcome.class.equals(listElement(returns)) : Outcome.class.equals(returns);
        if (!returnsOutcome && returns != void.class) {
            throw problem(method, "returns " + returns.getTypeName() + ": return " + (batch ? "List<Outcome>" : "Outcome")
                    + ", or void to ack on return");
        }
        for (SubscriptionOption<?> option : SubscriptionOption.all()) {
            try {
                option.fromAnnotation(inbound);
            } catch (InboxException e) {
                throw problem(method, "has an @Inbound attribute it cannot use: " + e.detail());
            }
        }
        if (batch && SubscriptionOption.TRANSACTIONAL.fromAnnotation(inbound).orElse(false)) {
            throw problem(method, "is a batch handler declared transactional: transactional deliveries are single;"
                    + " take one payload, or remove transactional = true");
        }
        return new HandlerMethod(bean, method, inbound, table, payloadType, payloadIndex, deliveryIndex, batch);
    }

    private static Type listElement(Type type) {
        if (type instanceof ParameterizedType p && p.getRawType() == List.class) {
            return p.getActualTypeArguments()[0];
        }
        return null;
    }

    static InboxException problem(Method method, String what) {
        return new InboxException(InboxException.Kind.DECLARATION, "handler " + method.getDeclaringClass().getName()
                + "." + method.getName() + " " + what);
    }

    Bean<?> bean() {
        return bean;
    }

    Method method() {
        return method;
    }

    Inbound inbound() {
        return inbound;
    }

    String queue() {
        return inbound.queue();
    }

    InboxSpec table() {
        return table;
    }

    Type payloadType() {
        return payloadType;
    }

    boolean batch() {
        return batch;
    }

    /** The method's arguments for one call. */
    Object[] arguments(Object payload, Object delivery) {
        Object[] args = new Object[deliveryIndex >= 0 ? 2 : 1];
        args[payloadIndex] = payload;
        if (deliveryIndex >= 0) {
            args[deliveryIndex] = delivery;
        }
        return args;
    }

    String describe() {
        return method.getDeclaringClass().getName() + "." + method.getName();
    }
}
