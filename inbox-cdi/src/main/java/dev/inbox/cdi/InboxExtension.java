package dev.inbox.cdi;

import dev.inbox.InboxException;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.AnnotatedMethod;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.DeploymentException;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessManagedBean;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds every bean method with an {@code @Inbound} parameter when the application deploys, checks
 * it, and fails the deployment with a message naming class, method and what to change. The
 * handlers it found are opened on the resource adapter when the application starts
 * ({@link InboxStartup}).
 */
public class InboxExtension implements Extension {
    private final Map<String, HandlerMethod> handlers = new LinkedHashMap<>();
    private final List<String> problems = new ArrayList<>();

    void addBeans(@Observes BeforeBeanDiscovery event, BeanManager manager) {
        event.addAnnotatedType(manager.createAnnotatedType(InboxStartup.class), InboxStartup.class.getName());
        event.addAnnotatedType(manager.createAnnotatedType(PublisherProducer.class), PublisherProducer.class.getName());
        event.addAnnotatedType(manager.createAnnotatedType(InboxQueues.class), InboxQueues.class.getName());
    }

    <T> void findHandlers(@Observes ProcessManagedBean<T> event) {
        for (AnnotatedMethod<? super T> method : event.getAnnotatedBeanClass().getMethods()) {
            try {
                HandlerMethod handler = HandlerMethod.of(event.getBean(), method);
                if (handler == null) {
                    continue;
                }
                HandlerMethod other = handlers.putIfAbsent(handler.queue(), handler);
                if (other != null) {
                    problems.add("queue " + handler.queue() + " has two handlers, " + other.describe() + " and "
                            + handler.describe() + ": a queue has one handler method (raise its workers for more)");
                }
            } catch (InboxException e) {
                problems.add(e.detail());
            }
        }
    }

    void report(@Observes AfterBeanDiscovery event) {
        problems.forEach(problem -> event.addDefinitionError(new DeploymentException(problem)));
    }

    /** The handlers found, by queue. */
    Map<String, HandlerMethod> handlers() {
        return Collections.unmodifiableMap(handlers);
    }
}
