package dev.inbox;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * One row of a queue's dead-letter table, as an operator sees it. A list of them
 * ({@code broker.deadLetters(queue, limit)}) holds the head of each payload, at most
 * {@link #PREVIEW} characters, and its whole length: fifty payloads of 2 MB are not read for a list.
 * {@code broker.deadLetter(queue, id, characters)} reads one with as much of its payload as asked.
 *
 * <pre>{@code
 * for (DeadLetter letter : broker.deadLetters("refunds", 50)) {
 *     System.out.println(letter.id() + ": " + letter.payload() + (letter.payloadCut() ? "..." : ""));
 * }
 * }</pre>
 *
 * @param id            the job's id (the queue row's, kept when it was moved)
 * @param payload       its payload, as JSON text: the whole, or its head where {@link #payloadCut()}
 * @param headers       its headers as a JSON object, or null where the queue keeps none
 * @param attempt       the attempt that failed last
 * @param error         why it was dead-lettered: the handler's exception, its drop reason, or the decoding error
 * @param failedAt      when it was moved
 * @param payloadLength the whole payload's length in bytes (UTF-8), however much of it {@code payload} holds
 * @param lastError     the last attempt's failure in detail (exception class, message, first stack frames, or
 *                      the handler's retry reason), or null where the queue keeps no {@link LastError} column
 */
public record DeadLetter(Object id, String payload, String headers, int attempt, String error, Instant failedAt,
        long payloadLength, String lastError) {
    /** The characters of each payload a list of dead letters holds, at most. */
    public static final int PREVIEW = 2000;

    /** A dead letter with its whole payload. */
    public DeadLetter(Object id, String payload, String headers, int attempt, String error, Instant failedAt) {
        this(id, payload, headers, attempt, error, failedAt, payload.getBytes(StandardCharsets.UTF_8).length);
    }

    /** A dead letter of a queue that keeps no last error. */
    public DeadLetter(Object id, String payload, String headers, int attempt, String error, Instant failedAt,
            long payloadLength) {
        this(id, payload, headers, attempt, error, failedAt, payloadLength, null);
    }

    /** True where {@code payload} holds only the head of the payload, {@link #payloadLength} bytes in all. */
    public boolean payloadCut() {
        return payload.getBytes(StandardCharsets.UTF_8).length < payloadLength;
    }
}
