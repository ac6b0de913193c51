package dev.inbox.sample.it.forms;

import dev.inbox.Attempt;
import dev.inbox.Id;
import dev.inbox.InboxTable;
import dev.inbox.Payload;
import dev.inbox.RetryAfter;
import java.time.Instant;

/** A row lock table (no lease, no advisory lock column), with retry_after to space retries. */
@InboxTable("it_rowlock_jobs")
public record RowLockEntry(@Id(generated = true) long id, @Attempt(generated = true) short attempt,
        @RetryAfter Instant retryAfter, @Payload byte[] payload) {}
