package dev.inbox.sample.it.forms;

import dev.inbox.AdvisoryLock;
import dev.inbox.Attempt;
import dev.inbox.Id;
import dev.inbox.InboxTable;
import dev.inbox.Payload;
import dev.inbox.RetryAfter;
import java.time.Instant;

/** An advisory lock table: its lock key column selects the advisory lock form. */
@InboxTable("it_advisory_jobs")
public record AdvisoryEntry(@Id(generated = true) long id, @Attempt(generated = true) short attempt,
        @AdvisoryLock String lockKey, @RetryAfter Instant retryAfter, @Payload byte[] payload) {}
