package dev.inbox.sample;

import dev.inbox.Attempt;
import dev.inbox.Id;
import dev.inbox.InboxTable;
import dev.inbox.LockedUntil;
import dev.inbox.Payload;
import java.time.Instant;

/** The reports queue (lease form, one-minute lease). {@link Schema} creates its table. */
@InboxTable("report_jobs")
public record RenderReport(
        @Id(generated = true) long id,
        @Attempt(generated = true) short attempt,
        @LockedUntil Instant lockedUntil,
        @Payload byte[] payload) {}
