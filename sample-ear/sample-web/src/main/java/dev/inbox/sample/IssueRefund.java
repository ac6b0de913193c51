package dev.inbox.sample;

import dev.inbox.Attempt;
import dev.inbox.Id;
import dev.inbox.InboxTable;
import dev.inbox.LastError;
import dev.inbox.LockedUntil;
import dev.inbox.Payload;
import dev.inbox.PublishedAt;
import java.time.Instant;

/** The refunds queue (lease form, transactional deliveries, last errors). {@link Schema} creates its table. */
@InboxTable("refund_jobs")
public record IssueRefund(
        @Id(generated = true) long id,
        @Attempt(generated = true) short attempt,
        @LockedUntil Instant lockedUntil,
        @PublishedAt Instant publishedAt,
        @LastError String lastError,             // why the newest attempt failed, dead letters too
        @Payload byte[] payload) {}
