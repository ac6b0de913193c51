package dev.inbox.jca;

import dev.inbox.Attempt;
import dev.inbox.Id;
import dev.inbox.InboxTable;
import dev.inbox.LockedUntil;
import dev.inbox.Payload;
import java.time.Instant;

/** The table of the test bean's queue, as an application describes it. */
@InboxTable("bean_jobs")
public record BeanJob(@Id(generated = true) long id, @Attempt(generated = true) int attempt,
        @LockedUntil Instant lockedUntil, @Payload byte[] payload) {}
