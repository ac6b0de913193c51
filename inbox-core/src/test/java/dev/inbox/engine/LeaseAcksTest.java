package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.ClaimForm;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.internal.form.FormContext;
import dev.inbox.internal.form.FormPlan;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.form.lease.LeaseForm;
import dev.inbox.internal.jdbc.ConnectionSource;
import dev.inbox.internal.jdbc.JdbcDeliveryTransactions;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.internal.task.PlatformThreads;
import dev.inbox.spi.BrokerListener;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.TableShape;
import dev.inbox.spi.Threads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Acks of the lease form written together: one connection and one transaction for all, each row
 * judged alone; carried by the next claim, or written once the subscription goes quiet.
 */
class LeaseAcksTest {
    private static final String TABLE = "ack_batch_jobs";


    /** The test pool, counting the connections taken from it. */
    private static final class CountingSource implements ConnectionSource {
        final ConnectionSource pool;
        final AtomicInteger opened = new AtomicInteger();

        CountingSource(ConnectionSource pool) {
            this.pool = pool;
        }

        @Override
        public Connection open() throws SQLException {
            opened.incrementAndGet();
            return pool.open();
        }
    }

    private final RecordedReports recorder = new RecordedReports();
    private final List<String> reports = recorder.lines;

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void acksHandedOverTogetherShareOneConnectionAndALostLeaseFailsOnlyItsOwn(TestDatabase db) throws Exception {
        db.createLeaseTable(TABLE);
        Dialect dialect = db.dialect();
        CountingSource source = new CountingSource(db.dataSource()::getConnection);
        // The id's type as PostgreSQL's driver reports it: there the acks go as one statement.
        TableShape shape = new TableShape(Job.leaseTable(TABLE), dialect::quote,
                db == TestDatabase.POSTGRES ? Map.of("id", "bigserial") : Map.of());
        assertThat(dialect.lease(shape).ackAll() != null).isEqualTo(db == TestDatabase.POSTGRES);
        FormPlan form = LeaseForm.open(context(dialect, source, shape), dialect.lease(shape), Duration.ofSeconds(30));
        insert(db, 5);
        List<InFlight> claimed = form.claimer().claim(Instant.now(), 5);
        assertThat(claimed).hasSize(5);
        InFlight stolen = claimed.get(2);
        stealLease(db, dialect, stolen);

        int openedBefore = source.opened.get();
        for (InFlight delivery : claimed) {
            ack(delivery); // the writer is not running yet: all five wait together
        }
        form.carry().start(new PlatformThreads());
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (reports.size() < 5 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(stopsInTime(form)).isTrue();

        assertThat(source.opened.get() - openedBefore).isEqualTo(1);
        assertThat(reports).hasSize(5).contains(stolen.id() + " LEASE_LOST");
        assertThat(reports).filteredOn(r -> r.endsWith("acked on inbox-acks-acks")).hasSize(4);
        assertThat(db.count(TABLE)).as("only the row another claim holds is left").isEqualTo(1);

        // Once closed, an ack handed over is written at once, on the caller's thread.
        insert(db, 1);
        InFlight late = form.claimer().claim(Instant.now(), 1).get(0);
        ack(late);
        assertThat(reports).last().isEqualTo(late.id() + " acked on " + Thread.currentThread().getName());
        assertThat(db.count(TABLE)).isEqualTo(1);
    }

    /**
     * Where the dialect chains statements (PostgreSQL), a claim writes the acks waiting after its
     * own statement, in its round trip: on the claim's thread, a lost lease judged alone. A claim
     * that fails gives its acks to the writer, and acks no claim comes for are written after a wait.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = "POSTGRES")
    void aClaimCarriesTheAcksWaitingAndTheWriterThoseNoClaimTakes(TestDatabase db) throws Exception {
        db.createLeaseTable(TABLE);
        Dialect dialect = db.dialect();
        CountingSource source = new CountingSource(db.dataSource()::getConnection);
        TableShape shape = new TableShape(Job.leaseTable(TABLE), dialect::quote, Map.of("id", "bigserial"));
        FormPlan form = LeaseForm.open(context(dialect, source, shape), dialect.lease(shape), Duration.ofSeconds(30));
        assertThat(form.statements()).extracting(Sql::name).doesNotContain("lease claim carrying acks");
        insert(db, 6);
        List<InFlight> claimed = form.claimer().claim(Instant.now(), 4);
        assertThat(claimed).hasSize(4);
        stealLease(db, dialect, claimed.get(1));
        // The writer is not running yet (nor its timer): the acks wait for the claim, however slow the machine.
        String here = Thread.currentThread().getName();
        ack(claimed.get(0));
        ack(claimed.get(1));

        int openedBefore = source.opened.get();
        List<InFlight> next = form.claimer().claim(Instant.now(), 1);
        assertThat(next).hasSize(1);
        assertThat(source.opened.get() - openedBefore).as("the claim and its acks on one connection").isEqualTo(1);
        assertThat(reports).containsExactlyInAnyOrder(claimed.get(0).id() + " acked on " + here,
                claimed.get(1).id() + " LEASE_LOST");
        assertThat(db.count(TABLE)).isEqualTo(5);

        // A claim that fails (a negative limit) before its acks run: the acks are written all the same.
        reports.clear();
        ack(claimed.get(2));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> form.claimer().claim(Instant.now(), -1))
                .isInstanceOf(SQLException.class);
        assertThat(reports).containsExactly(claimed.get(2).id() + " acked on " + here);
        assertThat(db.count(TABLE)).isEqualTo(4);

        // No claim comes: the writer writes the ack once it has waited.
        form.carry().start(new PlatformThreads());
        reports.clear();
        ack(claimed.get(3));
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (reports.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
        assertThat(reports).containsExactly(claimed.get(3).id() + " acked on inbox-acks-acks");
        assertThat(db.count(TABLE)).isEqualTo(3);
        assertThat(stopsInTime(form)).isTrue();
    }

    /**
     * Where the database takes one writer at a time (SQLite), a claim's transaction writes the acks
     * waiting before its claim: one commit for both, on the claim's thread and connection. A claim
     * that fails leaves the acks committed.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = "SQLITE")
    void aClaimsTransactionCommitsTheAcksWaiting(TestDatabase db) throws Exception {
        db.createLeaseTable(TABLE);
        Dialect dialect = db.dialect();
        AtomicBoolean claimsFail = new AtomicBoolean();
        AtomicBoolean opensFail = new AtomicBoolean();
        CountingSource source = new CountingSource(() -> {
            if (opensFail.get()) {
                throw new SQLException("no connection");
            }
            return RefusingConnection.of(db.dataSource().getConnection(), claimsFail::get,
                    sql -> sql.contains("RETURNING"), "claim refused");
        });
        TableShape shape = new TableShape(Job.leaseTable(TABLE), dialect::quote, Map.of("id", "integer"));
        FormPlan form = LeaseForm.open(context(dialect, source, shape), dialect.lease(shape), Duration.ofSeconds(30));
        insert(db, 6);
        List<InFlight> claimed = form.claimer().claim(Instant.now(), 4);
        assertThat(claimed).hasSize(4);
        String here = Thread.currentThread().getName();
        ack(claimed.get(0));
        ack(claimed.get(1));

        int openedBefore = source.opened.get();
        assertThat(form.claimer().claim(Instant.now(), 1)).hasSize(1);
        assertThat(source.opened.get() - openedBefore).as("the acks and the claim on one connection").isEqualTo(1);
        assertThat(reports).containsExactlyInAnyOrder(claimed.get(0).id() + " acked on " + here,
                claimed.get(1).id() + " acked on " + here);
        assertThat(db.count(TABLE)).isEqualTo(4);

        reports.clear();
        ack(claimed.get(2));
        claimsFail.set(true);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> form.claimer().claim(Instant.now(), 1))
                .isInstanceOf(SQLException.class).hasMessageContaining("claim refused");
        assertThat(reports).containsExactly(claimed.get(2).id() + " acked on " + here);
        assertThat(db.count(TABLE)).isEqualTo(3);

        // No connection for the claim: its acks are not dropped unreported, but go to the writer
        // (which finds no connection either, and reports them failed).
        reports.clear();
        claimsFail.set(false);
        ack(claimed.get(3));
        opensFail.set(true);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> form.claimer().claim(Instant.now(), 1))
                .isInstanceOf(SQLException.class).hasMessageContaining("no connection");
        assertThat(reports).singleElement().asString().startsWith(claimed.get(3).id() + " failed: ")
                .contains("no connection");
    }

    /**
     * A lone worker claims once it has worked the rows waiting, and that claim carries their acks:
     * on PostgreSQL in its round trip (where a plain loop makes two), on SQLite in its transaction
     * (one commit where a plain loop makes two). The acks are then reported on the worker's thread
     * (the claim runs there), not the ack writer's nor a claim loop's.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"POSTGRES", "SQLITE"})
    void aLoneWorkersClaimCarriesTheAcksOfTheRowsItWorked(TestDatabase db) throws Exception {
        // The claim loop claims the first rows (the wake) and leaves the rest to the worker: claiming
        // on beside it, it took the worker's claims over for good, and so reported their acks.
        Map<String, Integer> acks = acksByThread(db, 320, 16);
        assertThat(acks.getOrDefault("inbox-acks-worker", 0)).as("acks reported by thread: %s", acks)
                .isGreaterThanOrEqualTo(240);
    }

    /**
     * Where a claim carries the acks in its round trip (PostgreSQL), a lone worker claims for itself
     * at one row a claim too: the job's one round trip, where a claim loop beside it woke for each.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = "POSTGRES")
    void aLoneWorkersOneRowClaimCarriesTheLastAck(TestDatabase db) throws Exception {
        Map<String, Integer> acks = acksByThread(db, 200, 1);
        assertThat(acks.getOrDefault("inbox-acks-worker", 0)).as("acks reported by thread: %s", acks)
                .isGreaterThanOrEqualTo(150);
    }

    /** Drains {@code rows} jobs with one worker and claims of {@code batch}: the acks reported on each thread. */
    private static Map<String, Integer> acksByThread(TestDatabase db, int rows, int batch) throws Exception {
        db.createLeaseTable(TABLE);
        insert(db, rows);
        Map<String, Integer> acksByThread = new ConcurrentHashMap<>();
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .listener(new BrokerListener() {
                    @Override
                    public void settled(String queue, Object id, int attempt, Outcome outcome) {
                        acksByThread.merge(Thread.currentThread().getName(), 1, Integer::sum);
                    }
                })
                .subscribe(Subscription.of("acks", Job.leaseTable(TABLE), Job.class, (job, d) -> Outcome.ack())
                        .workers(1).batchSize(batch).prefetch(2 * batch))
                .connect();
        try {
            Eventually.await(() -> db.count(TABLE) == 0, Duration.ofSeconds(30), () -> db.count(TABLE) + " left");
        } finally {
            broker.shutdown();
        }
        assertThat(acksByThread.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(rows);
        return acksByThread;
    }

    /**
     * Acks wait for the next claim to carry them; where none comes (fewer rows than a claim takes,
     * and the poll far off), the subscription going quiet has the writer write them: with the
     * writer's timer held back, the rows are gone all the same.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"POSTGRES", "SQLITE"})
    void acksNoClaimCarriesAreWrittenOnceTheSubscriptionGoesQuiet(TestDatabase db) throws Exception {
        db.createLeaseTable(TABLE);
        drainsWithTimersHeldBack(db, Job.leaseTable(TABLE));
    }

    /** As above, for the advisory form on SQLite, whose acks wait, their rows locked, for the next claim. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = "SQLITE")
    void parkedAdvisoryAcksAreWrittenOnceTheSubscriptionGoesQuiet(TestDatabase db) throws Exception {
        TestTable table = TestTable.of(TABLE, ClaimForm.ADVISORY, TestTable.Feature.ATTEMPT);
        table.create(db);
        drainsWithTimersHeldBack(db, table.spec());
    }

    /** Three times, publishes fewer jobs than a claim takes and waits for their rows to go, no timer firing. */
    private static void drainsWithTimersHeldBack(TestDatabase db, InboxSpec table) throws Exception {
        AtomicInteger heldBack = new AtomicInteger();
        Threads platform = new PlatformThreads();
        Threads noTimers = new Threads() {
            @Override
            public void run(String name, Runnable task) {
                platform.run(name, task);
            }

            @Override
            public void schedule(Duration delay, Runnable signal) {
                heldBack.incrementAndGet(); // the poll, and the writer's look at acks no claim took
            }
        };
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMinutes(5)).threads(noTimers)
                .subscribe(Subscription.of("acks", table, Job.class, (job, d) -> Outcome.ack()).workers(1).batchSize(16))
                .connect();
        try {
            for (int round = 0; round < 3; round++) {
                broker.publisher("acks", Job.class).publishAll(List.of(new Job(1), new Job(2), new Job(3)));
                Eventually.await(() -> db.count(TABLE) == 0, Duration.ofSeconds(30), () -> db.count(TABLE) + " left");
            }
        } finally {
            broker.shutdown();
        }
        assertThat(heldBack.get()).as("timers held back").isPositive();
    }

    /** The lease form's context of the test table on {@code source}: one worker, claims of 16. */
    private FormContext context(Dialect dialect, ConnectionSource source, TableShape shape) {
        return new FormContext("acks", shape, dialect, source, new JdbcDeliveryTransactions(source, dialect), recorder,
                new BrokerListener() {}, Clock.systemUTC(), new ObjectMapper(), true, null,
                new FormContext.Workload(1, 16, false, false), ConcurrentHashMap.newKeySet(), sql -> true);
    }

    /** Stops the form's carry, which writes the acks waiting: true when that took less than 10 s. */
    private static boolean stopsInTime(FormPlan form) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        form.carry().stop(deadline);
        return System.nanoTime() < deadline;
    }

    /** Acks {@code delivery} as the deliverer does: settled first, so no keeper moves its token. */
    private static void ack(InFlight delivery) {
        delivery.settleOnce(false, () -> true);
        delivery.claim().ack(delivery, Instant.now());
    }

    /** Another claim takes the row, as after its lease ran out: it holds a token of its own. */
    private static void stealLease(TestDatabase db, Dialect dialect, InFlight delivery) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement("UPDATE " + TABLE + " SET attempt = attempt + 1,"
                        + " locked_until = ? WHERE id = ?")) {
            dialect.bindTime(ps, 1, dialect.deadline(Instant.now(), Duration.ofMinutes(5)));
            ps.setObject(2, delivery.id());
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
    }

    private static void insert(TestDatabase db, int rows) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (payload) VALUES (?)")) {
            for (int i = 0; i < rows; i++) {
                ps.setBytes(1, ("{\"n\":" + i + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                ps.executeUpdate();
            }
        }
    }
}
