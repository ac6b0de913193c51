package dev.inbox.schema.recipes;

import dev.inbox.Attempt;
import dev.inbox.Id;
import dev.inbox.InboxTable;
import dev.inbox.LockedUntil;
import dev.inbox.Payload;
import java.time.Instant;

/** The queue table the migration recipes create. */
@InboxTable("thumbnail_jobs")
public record MakeThumbnail(
        @Id(generated = true) long id,
        @Attempt(generated = true) short attempt,
        @LockedUntil Instant lockedUntil,
        @Payload byte[] payload) {}
