package dev.inbox.engine;

import static dev.inbox.engine.TestTable.Feature.ATTEMPT;
import static dev.inbox.engine.TestTable.Feature.HEADERS;
import static dev.inbox.engine.TestTable.Feature.LAST_ERROR;
import static dev.inbox.engine.TestTable.Feature.PUBLISHED_AT;
import static dev.inbox.engine.TestTable.Feature.RETRY_AFTER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.ClaimForm;
import dev.inbox.Column;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.JobPage;
import dev.inbox.JobQuery;
import dev.inbox.JobState;
import dev.inbox.Outcome;
import dev.inbox.PublishOptions;
import dev.inbox.Publisher;
import dev.inbox.QueuedJob;
import dev.inbox.RunNow;
import dev.inbox.Subscription;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An operator's view of a queue's unfinished jobs, in every claim form on every database: pages by
 * state in the order of the ids the publishes answered, a search of the payloads' text, one job by
 * id, the failing jobs with their last error, and a scheduled job made due now.
 */
class JobBrowserTest {
    private static final String TABLE = "browsed_jobs";

    private final List<InboxBroker> brokers = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void stop() {
        release.countDown();
        brokers.forEach(InboxBroker::shutdown);
    }

    static List<FormCase> cases() {
        return FormCase.all().toList();
    }

    private InboxBroker operator(TestDatabase db, InboxSpec spec) {
        InboxBroker operator = InboxBroker.fromDataSource(db.dataSource()).route("browse", spec).connect();
        brokers.add(operator);
        return operator;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void pagesOfJobsByStateInTheOrderOfTheirIds(FormCase c) {
        TestTable table = TestTable.of(TABLE, c.form(), ATTEMPT, RETRY_AFTER, PUBLISHED_AT, HEADERS, LAST_ERROR);
        table.create(c.db());
        InboxBroker operator = operator(c.db(), table.spec());
        Publisher<Job> publisher = operator.publisher("browse", Job.class);
        List<Object> due = new ArrayList<>();
        List<Object> scheduled = new ArrayList<>();
        Instant before = Instant.now();
        for (int n = 1; n <= 5; n++) {
            due.add(publisher.publish(new Job(n), PublishOptions.NONE.headers(Map.of("order", "o-" + n))).id());
        }
        for (int n = 6; n <= 8; n++) {
            scheduled.add(publisher.publish(new Job(n), PublishOptions.NONE.delay(Duration.ofHours(1))).id());
        }

        List<Object> all = new ArrayList<>();
        JobPage page = operator.jobs("browse", JobQuery.of(JobState.ALL).limit(3));
        List<Integer> sizes = new ArrayList<>();
        while (true) {
            sizes.add(page.jobs().size());
            page.jobs().forEach(job -> all.add(job.id()));
            if (!page.hasNext()) {
                break;
            }
            page = operator.jobs("browse", page.nextQuery());
        }
        assertThat(sizes).containsExactly(3, 3, 2);
        List<Object> published = new ArrayList<>(due);
        published.addAll(scheduled);
        assertThat(all).isEqualTo(published);

        List<QueuedJob> dueJobs = operator.jobs("browse", JobQuery.of(JobState.DUE)).jobs();
        assertThat(dueJobs).extracting(QueuedJob::id).isEqualTo(due);
        QueuedJob first = dueJobs.get(0);
        assertThat(first.state()).isEqualTo(JobState.DUE);
        assertThat(first.attempt()).isEqualTo(1);
        assertThat(first.payload()).isEqualTo("{\"n\":1}");
        assertThat(first.payloadCut()).isFalse();
        assertThat(first.headers()).contains("\"order\"", "\"o-1\"");
        assertThat(first.due()).isNull();
        assertThat(first.publishedAt()).isBetween(before.minusSeconds(2), Instant.now().plusSeconds(2));
        assertThat(first.lastError()).isNull();

        List<QueuedJob> later = operator.jobs("browse", JobQuery.of(JobState.SCHEDULED)).jobs();
        assertThat(later).extracting(QueuedJob::id).isEqualTo(scheduled);
        assertThat(later).allSatisfy(job -> {
            assertThat(job.state()).isEqualTo(JobState.SCHEDULED);
            assertThat(job.due()).isBetween(before.plus(Duration.ofMinutes(59)), before.plus(Duration.ofMinutes(61)));
        });

        assertThat(operator.jobs("browse", JobQuery.of(JobState.ALL).containing("\"n\":7")).jobs())
                .extracting(QueuedJob::id).containsExactly(scheduled.get(1));
        assertThat(operator.jobs("browse", JobQuery.of(JobState.DUE).containing("\"n\":7")).jobs()).isEmpty();
        assertThat(operator.jobs("browse", JobQuery.of(JobState.ALL).containing("no such text")).jobs()).isEmpty();
        assertThat(operator.jobs("browse", JobQuery.of(JobState.FAILING)).jobs()).isEmpty();

        QueuedJob head = operator.job("browse", due.get(2), 5).orElseThrow();
        assertThat(head.payload()).isEqualTo("{\"n\":");
        assertThat(head.payloadCut()).isTrue();
        assertThat(head.payloadLength()).isEqualTo(7);
        assertThat(operator.job("browse", String.valueOf(due.get(2)), 100)).get().extracting(QueuedJob::payload)
                .as("an id given as text").isEqualTo("{\"n\":3}");
        assertThat(operator.job("browse", 987_654_321L, 100)).isEmpty();
        assertThatThrownBy(() -> operator.jobs("nowhere", JobQuery.of(JobState.ALL)))
                .isInstanceOfSatisfying(InboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(InboxException.Kind.NOT_FOUND));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aScheduledJobRunsNowAndAJobInWorkIsLeftToItsHandler(FormCase c) throws Exception {
        TestTable table = TestTable.of(TABLE, c.form(), ATTEMPT, RETRY_AFTER, LAST_ERROR);
        table.create(c.db());
        InboxBroker operator = operator(c.db(), table.spec());
        Publisher<Job> publisher = operator.publisher("browse", Job.class);
        Object delayed = publisher.publish(new Job(1), PublishOptions.NONE.delay(Duration.ofHours(1))).id();

        assertThat(operator.runNow("browse", delayed)).isEqualTo(RunNow.DUE_NOW);
        assertThat(operator.job("browse", delayed, 100)).get().satisfies(job -> {
            assertThat(job.state()).isEqualTo(JobState.DUE);
            assertThat(job.due()).isNull();
        });
        assertThat(operator.runNow("browse", delayed)).isEqualTo(RunNow.ALREADY_DUE);
        assertThat(operator.runNow("browse", 987_654_321L)).isEqualTo(RunNow.NOT_FOUND);

        CountDownLatch holding = new CountDownLatch(1);
        List<Integer> handled = new CopyOnWriteArrayList<>();
        InboxBroker worker = InboxBroker.fromDataSource(c.db().dataSource()).pollInterval(Duration.ofMillis(100))
                .subscribe(Subscription.of("browse", table.spec(), Job.class, (job, d) -> {
                    holding.countDown();
                    release.await();
                    handled.add(job.n());
                    return Outcome.ack();
                }))
                .connect();
        brokers.add(worker);
        assertThat(holding.await(10, TimeUnit.SECONDS)).as("the job made due is taken").isTrue();
        if (c.form() != ClaimForm.ADVISORY) {
            assertThat(operator.runNow("browse", delayed)).as("a lease or row lock holds it").isEqualTo(RunNow.IN_WORK);
        }
        if (c.form() == ClaimForm.LEASE) {
            List<QueuedJob> inWork = operator.jobs("browse", JobQuery.of(JobState.IN_WORK)).jobs();
            assertThat(inWork).extracting(QueuedJob::id).containsExactly(delayed);
            assertThat(inWork.get(0).attempt()).as("the attempt in work").isEqualTo(1);
            assertThat(inWork.get(0).leasedUntil()).isAfter(Instant.now());
        } else {
            if (c.form() == ClaimForm.ADVISORY) {
                assertThat(operator.runNow("browse", delayed)).as("a lock no statement sees")
                        .isEqualTo(RunNow.ALREADY_DUE);
            }
            assertThatThrownBy(() -> operator.jobs("browse", JobQuery.of(JobState.IN_WORK)))
                    .isInstanceOfSatisfying(InboxException.class, e -> {
                        assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION);
                        assertThat(e.getMessage()).contains("browse", TABLE, "the lease form");
                    });
        }
        release.countDown();
        Eventually.await(() -> c.db().count(TABLE) == 0, Duration.ofSeconds(10), () -> "job 1 handled");
        assertThat(handled).containsExactly(1);
        assertThat(operator.runNow("browse", delayed)).isEqualTo(RunNow.NOT_FOUND);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aFailingJobShowsWhyAndRunsAgainWhenAsked(FormCase c) {
        TestTable table = TestTable.of(TABLE, c.form(), ATTEMPT, RETRY_AFTER, LAST_ERROR);
        table.create(c.db());
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        InboxBroker worker = InboxBroker.fromDataSource(c.db().dataSource()).pollInterval(Duration.ofMillis(100))
                .subscribe(Subscription.of("browse", table.spec(), Job.class, (job, d) -> {
                    attempts.add(d.attempt());
                    return d.attempt() == 1 ? Outcome.retry(Duration.ofHours(1), "the gateway said no")
                            : Outcome.ack();
                }))
                .connect();
        brokers.add(worker);
        Object id = worker.publisher("browse", Job.class).publish(new Job(1)).id();
        Eventually.await(() -> !worker.jobs("browse", JobQuery.of(JobState.FAILING)).jobs().isEmpty(),
                Duration.ofSeconds(10), () -> "job 1 failing");

        QueuedJob failing = worker.jobs("browse", JobQuery.of(JobState.FAILING)).jobs().get(0);
        assertThat(failing.id()).isEqualTo(id);
        assertThat(failing.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(failing.attempt()).as("its next attempt").isEqualTo(2);
        assertThat(failing.lastError()).contains("the gateway said no");
        assertThat(failing.due()).isAfter(Instant.now().plus(Duration.ofMinutes(59)));

        assertThat(worker.runNow("browse", id)).isEqualTo(RunNow.DUE_NOW);
        Eventually.await(() -> c.db().count(TABLE) == 0, Duration.ofSeconds(10), () -> "job 1 handled again");
        assertThat(attempts).containsExactly(1, 2);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aFilterTheTableCannotAnswerIsRefusedNamingWhatItNeeds(FormCase c) {
        TestTable table = TestTable.of(TABLE, c.form(), ATTEMPT);
        table.create(c.db());
        InboxBroker operator = operator(c.db(), table.spec());
        assertThatThrownBy(() -> operator.jobs("browse", JobQuery.of(JobState.FAILING)))
                .isInstanceOfSatisfying(InboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION);
                    assertThat(e.getMessage()).contains("browse", TABLE, "@LastError");
                });
        Object id = operator.publisher("browse", Job.class).publish(new Job(1)).id();
        assertThat(operator.runNow("browse", id)).as("no delays without retry_after").isEqualTo(RunNow.ALREADY_DUE);
        assertThat(operator.jobs("browse", JobQuery.of(JobState.DUE)).jobs()).extracting(QueuedJob::id)
                .containsExactly(id);
        assertThatThrownBy(() -> JobQuery.of(JobState.ALL).limit(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 to 1000");
    }

    /** A JSONB payload column is searched in its text, as PostgreSQL writes it out. */
    @Test
    void aJsonbPayloadIsSearchedInItsText() {
        TestDatabase db = TestDatabase.POSTGRES;
        db.execute("DROP TABLE IF EXISTS " + TABLE, "CREATE TABLE " + TABLE + " (id BIGSERIAL PRIMARY KEY,"
                + " attempt SMALLINT NOT NULL DEFAULT 1, locked_until TIMESTAMPTZ, payload JSONB NOT NULL)");
        InboxBroker operator = operator(db, Job.leaseTable(TABLE));
        Publisher<Job> publisher = operator.publisher("browse", Job.class);
        publisher.publish(new Job(41));
        Object id = publisher.publish(new Job(42)).id();
        List<QueuedJob> found = operator.jobs("browse", JobQuery.of(JobState.ALL).containing("42")).jobs();
        assertThat(found).extracting(QueuedJob::id).containsExactly(id);
        assertThat(found.get(0).payload()).isEqualTo("{\"n\": 42}");
    }
}
