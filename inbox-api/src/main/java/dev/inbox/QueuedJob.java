package dev.inbox;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * One unfinished job of a queue, as an operator sees it. A {@link JobPage} holds the head of each
 * payload ({@link DeadLetter#PREVIEW} characters at most) and its whole length.
 *
 * @param id            the job's id, as a publish answered it
 * @param state         {@link JobState#DUE}, {@link JobState#SCHEDULED} or {@link JobState#IN_WORK}
 * @param attempt       the attempt its next delivery makes (its current one, in work); 0 where the
 *                      table counts none
 * @param due           when a delay or a retry's back-off makes it due (the {@code retry_after}
 *                      column), null where it was due once published or the table keeps no such time
 * @param leasedUntil   the end of the lease that holds it (the lease form), else null
 * @param publishedAt   when it was published, null where the table keeps no {@link PublishedAt} column
 * @param payload       its payload as JSON text: the whole, or its head where {@link #payloadCut()}
 * @param payloadLength the whole payload's length in bytes (UTF-8)
 * @param headers       its headers as a JSON object, null where the queue keeps none
 * @param lastError     why its last attempt failed, null where none failed or the table keeps no
 *                      {@link LastError} column
 */
public record QueuedJob(Object id, JobState state, int attempt, Instant due, Instant leasedUntil,
        Instant publishedAt, String payload, long payloadLength, String headers, String lastError) {

    /** True where {@code payload} holds only the head of the payload, {@link #payloadLength} bytes in all. */
    public boolean payloadCut() {
        return payload.getBytes(StandardCharsets.UTF_8).length < payloadLength;
    }
}
