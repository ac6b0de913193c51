package dev.inbox.jca;

import dev.inbox.QueueHealth;
import dev.inbox.ShutdownReport;
import dev.inbox.engine.InboxBroker;
import java.util.List;

/**
 * The resource adapter as an application reaches it: the interface of the administered object the
 * server binds in JNDI ({@link InboxAdapterObject}, declared in {@code ra.xml}), so that a RAR in
 * the application's EAR and a standalone RAR serving several applications are reached alike.
 * The CDI extension looks it up by the JNDI name {@code inbox.adapter} gives ({@code inbox/adapter}
 * by default).
 */
public interface InboxAdapter {
    /** The JNDI name the CDI extension looks the adapter up by when {@code inbox.adapter} names none. */
    String DEFAULT_JNDI_NAME = "inbox/adapter";

    /**
     * Opens a broker for an application: connects to its data source and opens its subscriptions,
     * whose deliveries run on the adapter's Work in the application's context.
     *
     * @throws dev.inbox.InboxException any startup error of the engine, for the application to fail its start with
     */
    InboxBroker register(Registration registration);

    /** Shuts the application's broker down, after the container drained its requests; null if it had none. */
    ShutdownReport unregister(String application);

    /**
     * The health of the subscriptions of the message-driven beans this adapter activated for the
     * application whose classes {@code application} loads, by queue: not ready, naming the bean,
     * while one waits for its table or database.
     */
    List<QueueHealth> beans(ClassLoader application);

    /** The data source's JNDI name for applications whose configuration names none. */
    String getDataSource();
}
