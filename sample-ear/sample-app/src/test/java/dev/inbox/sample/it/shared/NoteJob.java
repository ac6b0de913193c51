package dev.inbox.sample.it.shared;

import dev.inbox.Attempt;
import dev.inbox.Id;
import dev.inbox.InboxTable;
import dev.inbox.LockedUntil;
import dev.inbox.Payload;
import java.time.Instant;

/** The notes table, in each application's own database. */
@InboxTable("note_jobs")
public record NoteJob(@Id(generated = true) long id, @Attempt(generated = true) short attempt,
        @LockedUntil Instant lockedUntil, @Payload byte[] payload) {}
