package dev.inbox.sample;

import dev.inbox.Attempt;
import dev.inbox.Id;
import dev.inbox.InboxTable;
import dev.inbox.LockedUntil;
import dev.inbox.Payload;
import java.time.Instant;

/** The thumbnails queue (lease form). {@link Schema} creates its table. */
@InboxTable("thumbnail_jobs")
public record MakeThumbnail(
        @Id(generated = true) long id,
        @Attempt(generated = true) short attempt,
        @LockedUntil Instant lockedUntil,
        @Payload byte[] payload) {}
