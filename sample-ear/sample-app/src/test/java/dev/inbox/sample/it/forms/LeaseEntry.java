package dev.inbox.sample.it.forms;

import dev.inbox.Attempt;
import dev.inbox.Id;
import dev.inbox.InboxTable;
import dev.inbox.LockedUntil;
import dev.inbox.Payload;
import java.time.Instant;

/** A lease table: its locked_until column selects the lease form. */
@InboxTable("it_lease_jobs")
public record LeaseEntry(@Id(generated = true) long id, @Attempt(generated = true) short attempt,
        @LockedUntil Instant lockedUntil, @Payload byte[] payload) {}
