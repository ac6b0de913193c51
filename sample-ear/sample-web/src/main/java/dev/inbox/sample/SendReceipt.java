package dev.inbox.sample;

import dev.inbox.Id;
import dev.inbox.InboxTable;
import dev.inbox.LockedUntil;
import dev.inbox.Payload;
import java.time.Instant;

/** The mailer's queue: no attempt column. {@link Schema} creates its table. */
@InboxTable("receipt_jobs")
public record SendReceipt(
        @Id(generated = true) long id,
        @LockedUntil Instant lockedUntil,
        @Payload byte[] payload) {}
