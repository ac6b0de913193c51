package dev.inbox;

/**
 * The message listener of Inbox's resource adapter: a message-driven bean that implements it
 * handles the jobs of one queue, named with its activation config properties ({@code queue}, the
 * {@code table} record class, and any subscription option by its {@link Inbound} attribute name).
 * CDI handler methods ({@link Inbound}) remain the first way to write handlers; this one is for
 * applications that deploy the adapter the way they deploy a JMS adapter.
 */
public interface InboxListener {

    /**
     * Handles one job.
     *
     * @param payload  the job's payload as JSON text
     * @param delivery its delivery (id, attempt, headers; in a transacted bean the connection of the
     *                 container's transaction, which the settlement joins)
     * @return its outcome; null is an ack. A thrown exception is a retry, and in a transacted bean
     *         rolls the container's transaction back.
     */
    Outcome onJob(String payload, Delivery delivery) throws Exception;
}
