package dev.inbox.jca;

import dev.inbox.InboxException;
import dev.inbox.QueueHealth;
import dev.inbox.ShutdownReport;
import dev.inbox.engine.InboxBroker;
import jakarta.resource.Referenceable;
import jakarta.resource.spi.ResourceAdapter;
import jakarta.resource.spi.ResourceAdapterAssociation;
import java.io.Serializable;
import java.util.List;
import javax.naming.Reference;

/**
 * The administered object an application looks up to reach the adapter: the server creates it
 * from {@code ra.xml}, associates it with its resource adapter instance (the RAR in the same EAR,
 * or the standalone RAR its configuration names) and binds it at the JNDI name it is given.
 */
public class InboxAdapterObject implements InboxAdapter, ResourceAdapterAssociation, Referenceable, Serializable {
    private static final long serialVersionUID = 1L;

    private transient InboxResourceAdapter adapter;
    private Reference reference;

    @Override
    public ResourceAdapter getResourceAdapter() {
        return adapter;
    }

    @Override
    public void setResourceAdapter(ResourceAdapter value) {
        if (!(value instanceof InboxResourceAdapter inbox)) {
            throw new IllegalArgumentException("an Inbox adapter object belongs to the Inbox resource adapter, not "
                    + (value == null ? "none" : value.getClass().getName()));
        }
        adapter = inbox;
    }

    private InboxResourceAdapter adapter() {
        if (adapter == null) {
            throw new InboxException(InboxException.Kind.CLOSED, "this Inbox adapter object belongs to no resource"
                    + " adapter: the server binds one to the Inbox RAR it is declared for");
        }
        return adapter;
    }

    @Override
    public InboxBroker register(Registration registration) {
        return adapter().register(registration);
    }

    @Override
    public ShutdownReport unregister(String application) {
        return adapter().unregister(application);
    }

    @Override
    public List<QueueHealth> beans(ClassLoader application) {
        return adapter().beans(application);
    }

    @Override
    public String getDataSource() {
        return adapter().getDataSource();
    }

    @Override
    public void setReference(Reference value) {
        reference = value;
    }

    @Override
    public Reference getReference() {
        return reference;
    }
}
