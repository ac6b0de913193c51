package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.ClaimForm;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.spi.BrokerListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The buffer of claimed rows: behind busy workers a subscription holds at most its prefetch more,
 * and claims to fill it run beside the workers; where several workers claim one row each, none waits.
 */
class PrefetchTest {
    private static final String TABLE = "prefetch_jobs";

    @ParameterizedTest(name = "workers={0} prefetch={1}")
    @CsvSource({"1, -1, 2", "1, 0, 1", "2, -1, 4", "1, 3, 4"})
    void busyWorkersHoldAtMostTheirPrefetchMore(int workers, int prefetch, int held) throws Exception {
        TestDatabase db = TestDatabase.POSTGRES;
        db.createLeaseTable(TABLE);
        CountDownLatch started = new CountDownLatch(workers);
        CountDownLatch finish = new CountDownLatch(1);
        Subscription<Job> subscription = Subscription.of("prefetch", Job.leaseTable(TABLE), Job.class, (job, d) -> {
            started.countDown();
            finish.await(30, TimeUnit.SECONDS);
            return Outcome.ack();
        }).workers(workers);
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(20))
                .subscribe(prefetch < 0 ? subscription : subscription.prefetch(prefetch)).connect();
        try {
            broker.publisher("prefetch", Job.class).publishAll(java.util.stream.IntStream.range(0, 10)
                    .mapToObj(Job::new).toList());
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            Eventually.await(() -> db.count(TABLE + " WHERE locked_until IS NOT NULL") == held,
                    Duration.ofSeconds(5), () -> db.count(TABLE + " WHERE locked_until IS NOT NULL") + " held");
            Thread.sleep(300); // several polls: still no more
            assertThat(db.count(TABLE + " WHERE locked_until IS NOT NULL")).isEqualTo(held);
        } finally {
            finish.countDown();
            broker.shutdown();
        }
        // Rows in work acked (and waiting ones a worker took before the stop); the rest given back unspent.
        assertThat(db.count(TABLE)).isBetween((long) 10 - held, (long) 10 - workers);
        assertThat(db.count(TABLE + " WHERE locked_until IS NULL AND attempt = 1")).isEqualTo(db.count(TABLE));
    }

    /**
     * The room a worker frees starts a claim on a claim loop's own thread while rows wait in the
     * buffer, so the worker goes on working them. Run on the worker's thread, that claim held up
     * every row waiting behind it: one worker drained at two thirds of the plain loop's pace.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("formsHoldingTheirClaims")
    void whileRowsWaitAClaimRunsBesideTheBusyWorker(FormCase c) throws Exception {
        List<Boolean> besideAHandler = claimsBesideAHandler(c);
        // The first two claims fill the buffer as the worker starts; the room it frees starts the others.
        assertThat(besideAHandler.stream().filter(beside -> beside).count())
                .as("claims that ran while the handler worked, of %s", besideAHandler)
                .isGreaterThanOrEqualTo(3);
    }

    /**
     * A lone lease worker claims for itself once it has worked the rows waiting, as a plain loop
     * does: a claim loop woken beside it for each claim cost two context switches a claim, more
     * than the overlap saved (inbox-bench's SideBySide: 0.75 of the JVM's CPU per job and 1.06 times
     * the jobs per second on PostgreSQL, batches of 16). So does a lone advisory worker on SQLite,
     * whose claim commits the acks of the rows it worked, and a lone row lock worker on PostgreSQL,
     * whose claim carries the acks and the commit of the claim it worked.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("formsWhoseLoneWorkerClaimsWhenDry")
    void aLoneWorkerClaimsOnceItHasWorkedTheRowsWaiting(FormCase c) throws Exception {
        List<Boolean> besideAHandler = claimsBesideAHandler(c);
        // The second claim may meet the worker starting on the first claim's rows; none after it.
        assertThat(besideAHandler.stream().filter(beside -> beside).count())
                .as("claims that ran while the handler worked, of %s", besideAHandler)
                .isLessThanOrEqualTo(1);
        assertThat(besideAHandler).as("claims that took rows").hasSizeGreaterThanOrEqualTo(6);
    }

    static Stream<FormCase> formsHoldingTheirClaims() {
        return FormCase.all().filter(c -> !dispatchedToALoneWorker(c));
    }

    static Stream<FormCase> formsWhoseLoneWorkerClaimsWhenDry() {
        return FormCase.all().filter(PrefetchTest::dispatchedToALoneWorker);
    }

    private static boolean dispatchedToALoneWorker(FormCase c) {
        return c.form() == ClaimForm.LEASE || c.form() == ClaimForm.ADVISORY && c.db() == TestDatabase.SQLITE
                || c.form() == ClaimForm.ROW_LOCK && c.db() == TestDatabase.POSTGRES;
    }

    /** Drains 24 jobs of 20 ms at one worker, batches of 4, prefetch 8: for each claim that took rows, whether a handler ran. */
    private static List<Boolean> claimsBesideAHandler(FormCase c) throws Exception {
        TestDatabase db = c.db();
        TestTable table = TestTable.of("beside_jobs", c.form(), TestTable.Feature.ATTEMPT);
        table.create(db);
        AtomicInteger handling = new AtomicInteger();
        List<Boolean> besideAHandler = new CopyOnWriteArrayList<>();
        Subscription<Job> subscription = Subscription.of("beside", table.spec(), Job.class, (job, d) -> {
            handling.incrementAndGet();
            try {
                Thread.sleep(20);
            } finally {
                handling.decrementAndGet();
            }
            return Outcome.ack();
        }).workers(1).batchSize(4).prefetch(8);
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .listener(new BrokerListener() {
                    @Override
                    public void claimed(String queue, int rows, Duration took) {
                        if (rows > 0) {
                            besideAHandler.add(handling.get() > 0);
                        }
                    }
                })
                .subscribe(subscription).connect();
        try {
            broker.publisher("beside", Job.class).publishAll(IntStream.range(0, 24).mapToObj(Job::new).toList());
            Eventually.await(() -> db.count(table.name()) == 0, Duration.ofSeconds(30),
                    () -> db.count(table.name()) + " left");
        } finally {
            broker.shutdown();
        }
        return besideAHandler;
    }

    /**
     * Where a claim takes one row (batch size 1, or a transactional row lock subscription, whose
     * claim is the job's transaction) and several workers run, the thread that claimed a row works
     * it, as a plain loop would, whatever the prefetch. Handed from a claim loop to a worker, each
     * job cost two thread wakes, and drains at 16 workers ran at three quarters of the loop's pace.
     */
    @ParameterizedTest(name = "{0}, transactional={1}")
    @MethodSource("claimsOfOneRow")
    void aClaimOfOneRowIsWorkedByTheThreadThatClaimedIt(FormCase c, boolean transactional) throws Exception {
        TestDatabase db = c.db();
        TestTable table = TestTable.of("one_row_jobs", c.form(), TestTable.Feature.ATTEMPT);
        table.create(db);
        ThreadLocal<Boolean> claimedHere = new ThreadLocal<>();
        List<Boolean> workedWhereClaimed = new CopyOnWriteArrayList<>();
        Subscription<Job> subscription = Subscription.of("one", table.spec(), Job.class, (job, d) -> {
            workedWhereClaimed.add(Boolean.TRUE.equals(claimedHere.get()));
            claimedHere.remove();
            return Outcome.ack();
        }).workers(db == TestDatabase.SQLITE ? 2 : 4).prefetch(8).transactional(transactional);
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .listener(new BrokerListener() {
                    @Override
                    public void claimed(String queue, int rows, Duration took) {
                        if (rows > 0) {
                            claimedHere.set(true);
                        }
                    }
                })
                .subscribe(transactional ? subscription : subscription.batchSize(1)).connect();
        try {
            broker.publisher("one", Job.class).publishAll(IntStream.range(0, 60).mapToObj(Job::new).toList());
            Eventually.await(() -> db.count(table.name()) == 0, Duration.ofSeconds(30),
                    () -> db.count(table.name()) + " left");
        } finally {
            broker.shutdown();
        }
        assertThat(workedWhereClaimed).hasSize(60).containsOnly(true);
    }

    static Stream<Arguments> claimsOfOneRow() {
        return Stream.concat(FormCase.all().map(c -> Arguments.of(c, false)),
                FormCase.all().filter(c -> c.form() == ClaimForm.ROW_LOCK).map(c -> Arguments.of(c, true)));
    }
}
