package dev.inbox.jca;

import dev.inbox.Attempt;
import dev.inbox.Id;
import dev.inbox.InboxTable;
import dev.inbox.LockedUntil;
import dev.inbox.Payload;
import java.time.Instant;

/** The table of a test application's handler queue, beside the test bean's. */
@InboxTable("app_jobs")
public record AppJob(@Id(generated = true) long id, @Attempt(generated = true) int attempt,
        @LockedUntil Instant lockedUntil, @Payload byte[] payload) {}
