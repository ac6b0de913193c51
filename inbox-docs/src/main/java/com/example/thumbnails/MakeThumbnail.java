package com.example.thumbnails;

// tag::table[]
import dev.inbox.Attempt;
import dev.inbox.Id;
import dev.inbox.InboxTable;
import dev.inbox.LastError;
import dev.inbox.LockedUntil;
import dev.inbox.Payload;
import java.time.Instant;

@InboxTable("thumbnail_jobs")
public record MakeThumbnail(
        @Id(generated = true) long id,
        @Attempt(generated = true) short attempt,
        @LockedUntil Instant lockedUntil,        // a lease column: the lease claim form
        @LastError String lastError,             // why the newest attempt failed (optional)
        @Payload byte[] payload) {}              // the job, as JSON
// end::table[]
