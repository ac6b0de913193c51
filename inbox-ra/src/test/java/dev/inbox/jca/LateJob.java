package dev.inbox.jca;

import dev.inbox.Attempt;
import dev.inbox.Id;
import dev.inbox.InboxTable;
import dev.inbox.LockedUntil;
import dev.inbox.Payload;
import java.time.Instant;

/** A queue table the application creates only after the server activated the bean. */
@InboxTable("late_jobs")
public record LateJob(@Id(generated = true) long id, @Attempt(generated = true) int attempt,
        @LockedUntil Instant lockedUntil, @Payload byte[] payload) {}
