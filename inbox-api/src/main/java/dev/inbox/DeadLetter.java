package dev.inbox;

import java.time.Instant;

/**
 * One row of a queue's dead-letter table, as an operator sees it.
 *
 * @param id       the job's id (the queue row's, kept when it was moved)
 * @param payload  its payload, as JSON text
 * @param headers  its headers as a JSON object, or null where the queue keeps none
 * @param attempt  the attempt that failed last
 * @param error    why it was dead-lettered: the handler's exception, its drop reason, or the decoding error
 * @param failedAt when it was moved
 */
public record DeadLetter(Object id, String payload, String headers, int attempt, String error, Instant failedAt) {}
