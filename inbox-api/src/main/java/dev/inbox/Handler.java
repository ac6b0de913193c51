package dev.inbox;

/**
 * Handles one delivery's payload. A thrown exception gives the row back for another attempt.
 *
 * @param <T> the type the payload is decoded into
 */
@FunctionalInterface
public interface Handler<T> {
    Outcome handle(T payload, Delivery delivery) throws Exception;
}
