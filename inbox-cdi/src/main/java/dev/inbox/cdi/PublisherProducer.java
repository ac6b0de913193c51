package dev.inbox.cdi;

import dev.inbox.InboxException;
import dev.inbox.Publisher;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.InjectionPoint;
import jakarta.inject.Inject;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;

/** Produces {@code @Inject @Queue("name") Publisher<T>}. */
@Dependent
public class PublisherProducer {

    @Inject
    InboxStartup startup;

    @Produces
    @Queue("")
    <T> Publisher<T> publisher(InjectionPoint injectionPoint) {
        Queue queue = injectionPoint.getQualifiers().stream().filter(Queue.class::isInstance).map(Queue.class::cast)
                .findFirst().orElseThrow();
        return new TransactionalPublisher<>(startup, queue.value(), payloadType(injectionPoint));
    }

    @SuppressWarnings("unchecked")
    private static <T> Class<T> payloadType(InjectionPoint injectionPoint) {
        Type type = injectionPoint.getType();
        if (type instanceof ParameterizedType p && p.getActualTypeArguments()[0] instanceof Class<?> c) {
            return (Class<T>) c;
        }
        throw new InboxException(InboxException.Kind.DECLARATION, "the publisher injected into "
                + injectionPoint.getMember() + " needs its payload type: declare it as Publisher<YourPayload>");
    }
}
