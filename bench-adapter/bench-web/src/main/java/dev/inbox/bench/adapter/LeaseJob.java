package dev.inbox.bench.adapter;

import dev.inbox.Attempt;
import dev.inbox.Id;
import dev.inbox.InboxTable;
import dev.inbox.LockedUntil;
import dev.inbox.Payload;
import java.time.Instant;

/** The lease case's queue table; the benchmark harness creates and fills it. */
@InboxTable("benchra_jobs")
public record LeaseJob(
        @Id(generated = true) long id,
        @Attempt(generated = true) short attempt,
        @LockedUntil Instant lockedUntil,
        @Payload byte[] payload) {}
