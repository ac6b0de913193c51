package dev.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The table description from annotations equals the one the manual builder yields. */
class InboxSpecTest {

    @InboxTable("thumbnail_jobs")
    record MakeThumbnail(
            @Id(generated = true) long id,
            @Attempt(generated = true) short attempt,
            @LockedUntil Instant lockedUntil,
            @Payload byte[] payload) {}

    @InboxTable(value = "orders.order_jobs", isolation = Isolation.READ_COMMITTED)
    record OrderJob(
            @Id("job_id") String id,
            @AdvisoryLock long advisoryLock,
            @Payload("body") String payload,
            @RetryAfter Instant retryAfter,
            @ProcessedAt Instant processedAt,
            @Headers String headers,
            @Group("partition_key") String group,
            @Priority int priority) {}

    record NotATable(@Id long id) {}

    @InboxTable("two_ids")
    record TwoIds(@Id long id, @Id long other, @Payload byte[] payload) {}

    @Test
    void annotationsAndTheManualBuilderDescribeTheSameTable() {
        InboxSpec manual = InboxSpec.table("thumbnail_jobs", Column.of("id").generated())
                .attempt(Column.of("attempt").generated())
                .lease(Column.of("locked_until"))
                .payload(Column.of("payload"));
        assertThat(InboxSpec.of(MakeThumbnail.class)).isEqualTo(manual);
        assertThat(manual.claimForm()).isEqualTo(ClaimForm.LEASE);
    }

    @Test
    void everyOptionalColumnIsRead() {
        InboxSpec spec = InboxSpec.of(OrderJob.class);
        InboxSpec manual = InboxSpec.table("orders.order_jobs", Column.of("job_id"))
                .advisoryLock(Column.of("advisory_lock"))
                .payload(Column.of("body"))
                .retryAfter(Column.of("retry_after"))
                .processedAt(Column.of("processed_at"))
                .headers(Column.of("headers"))
                .group(Column.of("partition_key"))
                .priority(Column.of("priority"))
                .isolation(Isolation.READ_COMMITTED);
        assertThat(spec).isEqualTo(manual);
        assertThat(spec.claimForm()).isEqualTo(ClaimForm.ADVISORY);
        assertThat(spec.attempt()).isEmpty();
    }

    @Test
    void aTableWithNeitherLeaseNorAdvisoryLockUsesRowLocks() {
        assertThat(InboxSpec.table("jobs", Column.of("id")).payload(Column.of("payload")).claimForm())
                .isEqualTo(ClaimForm.ROW_LOCK);
    }

    @Test
    void aRecordWithoutInboxTableOrWithTwoIdsIsRefused() {
        assertThatThrownBy(() -> InboxSpec.of(NotATable.class)).hasMessageContaining("DECLARATION")
                .hasMessageContaining("@InboxTable");
        assertThatThrownBy(() -> InboxSpec.of(TwoIds.class)).hasMessageContaining("@Id")
                .hasMessageContaining("keep it on one");
    }

    @Test
    void schemaQualifiedNamesAreAcceptedAndOthersRefused() {
        assertThat(InboxSpec.table("app.jobs", Column.of("id")).table()).isEqualTo("app.jobs");
        assertThatThrownBy(() -> InboxSpec.table("a.b.c", Column.of("id"))).hasMessageContaining("'a.b.c'");
        assertThatThrownBy(() -> InboxSpec.table("1jobs", Column.of("id"))).hasMessageContaining("digit");
    }
}
