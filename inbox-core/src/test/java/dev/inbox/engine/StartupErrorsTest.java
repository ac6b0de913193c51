package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.Column;
import dev.inbox.InboxException.Kind;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.QueueClock;
import dev.inbox.ShutdownReport;
import dev.inbox.Subscription;
import dev.inbox.internal.broker.BrokerOpener;
import java.time.Duration;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every startup error of SPEC §7 and §9: its kind, and a message that names what to change. */
class StartupErrorsTest {
    private static final String SECRET = "s3cret-Pa55";

    private InboxBroker broker;

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.shutdown(Duration.ofSeconds(2));
        }
    }

    private static Subscription<Job> subscription(String queue, InboxSpec table) {
        return Subscription.of(queue, table, Job.class, (job, d) -> Outcome.ack());
    }

    private static void assertFails(ThrowingCallable call, Kind kind, String... mentions) {
        assertThatThrownBy(call).isInstanceOfSatisfying(InboxException.class, e -> {
            assertThat(e.kind()).isEqualTo(kind);
            assertThat(e.getMessage()).contains(mentions);
        });
    }

    private InboxBroker open(TestDatabase db, Subscription<?>... subscriptions) {
        broker = InboxBroker.fromUrl(db.url());
        for (Subscription<?> s : subscriptions) {
            broker.subscribe(s);
        }
        return broker.connect();
    }

    @Test
    void aUrlNoDriverReadsFailsWithUrl() {
        assertFails(() -> InboxBroker.fromUrl("jdbc:nosuchdb://127.0.0.1/app").connect(), Kind.URL,
                "jdbc:nosuchdb://127.0.0.1/app", "scheme");
    }

    @Test
    void aDatabaseOutOfReachFailsWithConnectAndNoPassword() {
        String url = "jdbc:postgresql://127.0.0.1:1/test?user=app&password=" + SECRET;
        List<String> logged = LogCapture.during(() -> assertThatThrownBy(() -> InboxBroker.fromUrl(url).connect())
                .isInstanceOfSatisfying(InboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.CONNECT);
                    assertThat(e.getMessage()).contains("127.0.0.1:1", "out of reach").doesNotContain(SECRET);
                    assertThat(e.getCause()).isNull();
                }));
        assertThat(logged).noneMatch(line -> line.contains(SECRET));
    }

    @Test
    void aPasswordGivenApartNeverAppearsInTheMessage() {
        assertThatThrownBy(() -> InboxBroker.fromUrl("jdbc:mariadb://127.0.0.1:1/test", "root", SECRET).connect())
                .isInstanceOfSatisfying(InboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.CONNECT);
                    assertThat(e.getMessage()).doesNotContain(SECRET);
                });
    }

    @Test
    void aPasswordInTheUrlOfARunningBrokerNeverReachesTheLog() {
        TestDatabase.POSTGRES.createLeaseTable("secret_jobs");
        String url = TestDatabase.POSTGRES.url() + "&password=" + SECRET;
        List<String> logged = LogCapture.during(() -> {
            InboxBroker b = InboxBroker.fromUrl(url).subscribe(subscription("secret", Job.leaseTable("secret_jobs")))
                    .connect();
            ShutdownReport report = b.shutdown();
            assertThat(report.toString()).doesNotContain(SECRET);
        });
        assertThat(logged).isNotEmpty().noneMatch(line -> line.contains(SECRET));
    }

    @Test
    void aDatabaseNoDialectServesFailsWithBackend() {
        assertFails(() -> InboxBroker.fromUrl("jdbc:h2:mem:backend").connect(), Kind.BACKEND, "H2",
                "dialect of your own");
    }

    @Test
    void aRowLockTableIsRefusedOnSqliteNamingTheFormsItServes() {
        InboxSpec rowLock = InboxSpec.table("rowlock_jobs", Column.of("id").generated()).payload(Column.of("payload"));
        assertFails(() -> open(TestDatabase.SQLITE, subscription("rowlock", rowLock)), Kind.DECLARATION,
                "rowlock_jobs", "ROW_LOCK", "sqlite", "LEASE", "ADVISORY");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aSecondSubscriptionToOneQueueIsRefused(TestDatabase db) {
        broker = InboxBroker.fromUrl(db.url()).subscribe(subscription("twice", Job.leaseTable("twice_jobs")));
        assertFails(() -> broker.subscribe(subscription("twice", Job.leaseTable("twice_jobs"))), Kind.DECLARATION,
                "queue twice", "once");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void configuringAConnectedBrokerFailsWithLifecycle(TestDatabase db) {
        db.createLeaseTable("twice_jobs");
        open(db, subscription("twice", Job.leaseTable("twice_jobs")));
        assertFails(() -> broker.subscribe(subscription("later", Job.leaseTable("twice_jobs"))), Kind.LIFECYCLE,
                "queue later", "connected", "before connect()");
        assertFails(() -> broker.connect(), Kind.LIFECYCLE, "connected", "connect again");
        assertFails(() -> broker.lease(Duration.ofSeconds(5)), Kind.LIFECYCLE, "lease");
        assertFails(() -> broker.route("later", Job.leaseTable("twice_jobs")), Kind.LIFECYCLE, "route queue later");
        broker.shutdown();
        assertFails(() -> broker.connect(), Kind.CLOSED, "shut down");
    }

    @Test
    void publishingBeforeConnectFailsWithLifecycle() {
        broker = InboxBroker.fromUrl(TestDatabase.SQLITE.url()).route("early", Job.leaseTable("early_jobs"));
        assertFails(() -> broker.publisher("early", Job.class).publish(new Job(1)), Kind.LIFECYCLE, "queue early",
                "connect()");
        assertFails(() -> broker.publisher("unknown", Job.class), Kind.DECLARATION, "queue unknown", "route it");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aMissingTableFailsWithSchemaNamingTableAndStatement(TestDatabase db) {
        db.execute("DROP TABLE IF EXISTS missing_jobs");
        assertFails(() -> open(db, subscription("missing", Job.leaseTable("missing_jobs"))), Kind.SCHEMA,
                "missing_jobs", "statement", "SELECT");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aMissingColumnFailsWithSchemaNamingTheTable(TestDatabase db) {
        db.execute("DROP TABLE IF EXISTS nolease_jobs",
                "CREATE TABLE nolease_jobs (id INTEGER PRIMARY KEY, attempt INTEGER NOT NULL DEFAULT 1,"
                        + " payload VARCHAR(200) NOT NULL)");
        assertFails(() -> open(db, subscription("nolease", Job.leaseTable("nolease_jobs"))), Kind.SCHEMA,
                "nolease_jobs", "locked_until");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void everyStatementIsPreparedOnTheServerAtOpen(TestDatabase db) {
        // Every column exists, so the column check passes; but no statement can write to this view.
        db.execute("DROP VIEW IF EXISTS readonly_jobs");
        db.createLeaseTable("readonly_base");
        db.execute("CREATE VIEW readonly_jobs AS SELECT DISTINCT id, attempt, locked_until, payload FROM readonly_base");
        assertFails(() -> open(db, subscription("readonly", Job.leaseTable("readonly_jobs"))), Kind.SCHEMA,
                "readonly_jobs", "the insert statement", "INSERT INTO");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "CONNECTOR_J"})
    void aPriorityTableWithoutAnIndexInClaimOrderIsRefusedOnMariaDb(TestDatabase db) {
        db.execute("DROP TABLE IF EXISTS prio_jobs",
                "CREATE TABLE prio_jobs (id BIGINT AUTO_INCREMENT PRIMARY KEY, attempt SMALLINT NOT NULL DEFAULT 1,"
                        + " locked_until DATETIME NULL, priority INTEGER NOT NULL DEFAULT 0, payload BLOB NOT NULL)",
                "CREATE INDEX prio_jobs_ascending ON prio_jobs (priority, id)");
        InboxSpec spec = Job.leaseTable("prio_jobs").priority(dev.inbox.Column.of("priority"));
        assertFails(() -> open(db, subscription("prio", spec)), Kind.SCHEMA, "prio_jobs", "locks every ready row",
                "CREATE INDEX prio_jobs_claim ON prio_jobs (priority DESC, id)");
        broker.shutdown(Duration.ofSeconds(2));
        db.execute("CREATE INDEX prio_jobs_claim ON prio_jobs (priority DESC, id)");
        open(db, subscription("prio", spec)).publisher("prio", Job.class).publish(new Job(1),
                dev.inbox.PublishOptions.NONE.priority(3));
        Eventually.await(() -> db.count("prio_jobs") == 0, Duration.ofSeconds(30), () -> "the job, claimed through the index");
    }

    @Test
    void aTextAttemptColumnIsRefusedByItsTypeBeforeAnyStatement() {
        // Before its type was checked, PostgreSQL refused the claim's "attempt + 1" as it prepared it.
        TestDatabase.POSTGRES.execute("DROP TABLE IF EXISTS textattempt_jobs",
                "CREATE TABLE textattempt_jobs (id BIGSERIAL PRIMARY KEY, attempt TEXT NOT NULL DEFAULT '1',"
                        + " locked_until TIMESTAMPTZ, payload BYTEA NOT NULL)");
        assertFails(() -> open(TestDatabase.POSTGRES, subscription("textattempt", Job.leaseTable("textattempt_jobs"))),
                Kind.SCHEMA, "textattempt_jobs", "column attempt is text, not a whole number", "use INTEGER");
    }

    @Test
    void aNameTooLongForTheDatabaseIsRefusedBeforeAnySql() {
        String longName = "t".repeat(70);
        assertFails(() -> open(TestDatabase.POSTGRES, subscription("long", Job.leaseTable(longName))),
                Kind.DECLARATION, longName, "63");
    }

    @Test
    void namesThatAreNotPlainIdentifiersAreRefusedInTheDescription() {
        assertFails(() -> Job.leaseTable("jobs; DROP TABLE users"), Kind.DECLARATION, "jobs; DROP TABLE users");
        assertFails(() -> Column.of("locked until"), Kind.DECLARATION, "locked until");
        assertFails(() -> Column.of("\"payload\""), Kind.DECLARATION, "quotes");
    }

    @Test
    void aDescriptionMustBeWhole() {
        assertFails(() -> InboxSpec.table("jobs", Column.of("id")).claimForm(), Kind.DECLARATION, "jobs", "payload");
        assertFails(() -> Job.leaseTable("jobs").advisoryLock(Column.of("advisory_lock")).claimForm(),
                Kind.DECLARATION, "jobs", "locked_until", "advisory_lock");
        assertFails(() -> Job.leaseTable("jobs").clock(QueueClock.DATABASE).claimForm(), Kind.DECLARATION, "jobs",
                "clock");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void attemptsAndDeadLetterGoTogether(TestDatabase db) {
        db.createLeaseTable("cap_jobs");
        assertFails(() -> open(db, subscription("cap", Job.leaseTable("cap_jobs")).maxAttempts(3)), Kind.DECLARATION,
                "queue cap", "maxAttempts without deadLetter");
        assertFails(() -> open(db, subscription("cap", Job.leaseTable("cap_jobs")).deadLetter("dead_jobs")),
                Kind.DECLARATION, "queue cap", "deadLetter without maxAttempts");
        InboxSpec noAttempt = InboxSpec.table("cap_jobs", Column.of("id").generated()).lease(Column.of("locked_until"))
                .payload(Column.of("payload"));
        assertFails(() -> open(db, subscription("cap", noAttempt).maxAttempts(3).deadLetter("dead_jobs")),
                Kind.DECLARATION, "cap_jobs", "no attempt column");
    }

    /** Before, both were accepted and dead-lettered 134 of each other's 400 rows as undecodable. */
    @Test
    void twoSubscriptionsWithOtherPayloadTypesOnOneTableAreRefused() {
        InboxBroker twoTypes = InboxBroker.fromUrl(TestDatabase.SQLITE.url())
                .subscribe(subscription("jobs-a", Job.leaseTable("shared_jobs")));
        assertFails(() -> twoTypes.subscribe(Subscription.of("jobs-b", Job.leaseTable("shared_jobs"), String.class,
                (text, d) -> Outcome.ack())), Kind.DECLARATION, "queues jobs-a and jobs-b", "shared_jobs",
                Job.class.getName(), "java.lang.String", "a table of its own");
        twoTypes.subscribe(subscription("jobs-c", Job.leaseTable("shared_jobs")));
    }

    @Test
    void aRetryBackoffLongerThanItsLongestIsRefusedNamingBoth() {
        Subscription<Job> s = subscription("backoff", Job.leaseTable("backoff_jobs")).retryBackoff(Duration.ofMinutes(10));
        assertFails(() -> InboxBroker.fromUrl(TestDatabase.SQLITE.url()).subscribe(s), Kind.DECLARATION, "queue backoff",
                "PT10M", "retry-backoff", "PT5M", "retry-backoff-max");
        InboxBroker.fromUrl(TestDatabase.SQLITE.url()).subscribe(s.retryBackoffMax(Duration.ofMinutes(10)));
    }

    @Test
    void absurdOptionsAreRefusedWithTheirRange() {
        Subscription<Job> s = subscription("opts", Job.leaseTable("opts_jobs"));
        assertFails(() -> s.workers(0), Kind.DECLARATION, "workers", "between 1 and 1024");
        assertFails(() -> s.lease(Duration.ofSeconds(-1)), Kind.DECLARATION, "lease");
        assertFails(() -> s.lease(Duration.ZERO), Kind.DECLARATION, "lease");
        assertFails(() -> s.batchSize(1_000_000), Kind.DECLARATION, "batch-size");
        assertFails(() -> InboxBroker.fromUrl("jdbc:sqlite::memory:").pollInterval(Duration.ofDays(30)),
                Kind.DECLARATION, "poll-interval");
    }

    @Test
    void leasesAreWholeSecondsRoundedUp() {
        assertThat(BrokerOpener.wholeSeconds(Duration.ofMillis(1))).isEqualTo(Duration.ofSeconds(1));
        assertThat(BrokerOpener.wholeSeconds(Duration.ofMillis(1500))).isEqualTo(Duration.ofSeconds(2));
        assertThat(BrokerOpener.wholeSeconds(Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(30));
    }
}
