package dev.inbox.sample.it.forms;

import dev.inbox.Attempt;
import dev.inbox.Id;
import dev.inbox.InboxTable;
import dev.inbox.LockedUntil;
import dev.inbox.Payload;
import java.time.Instant;

/** The message-driven bean's queue table (lease form). */
@InboxTable("it_mdb_jobs")
public record MdbEntry(@Id(generated = true) long id, @Attempt(generated = true) short attempt,
        @LockedUntil Instant lockedUntil, @Payload byte[] payload) {}
