package dev.inbox.sample;

import dev.inbox.Attempt;
import dev.inbox.Id;
import dev.inbox.InboxTable;
import dev.inbox.LockedUntil;
import dev.inbox.Payload;
import java.time.Instant;

/**
 * The ledger queue (lease form), handled by the message-driven {@link LedgerBean} rather than a
 * handler method, so its publishers name this table: {@code @Queue(value = "ledger", table = LedgerJob.class)}.
 */
@InboxTable("ledger_jobs")
public record LedgerJob(
        @Id(generated = true) long id,
        @Attempt(generated = true) short attempt,
        @LockedUntil Instant lockedUntil,
        @Payload byte[] payload) {}
