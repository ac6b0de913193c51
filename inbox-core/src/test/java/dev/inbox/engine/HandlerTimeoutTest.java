package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Outcome;
import dev.inbox.Subscription;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The {@code handler-timeout} option: a handler that runs too long fails its attempt, and holds nothing for ever. */
class HandlerTimeoutTest {
    private static final String TABLE = "timeout_jobs";
    private static final String WRITES = "timeout_writes";
    private static final Duration TIMEOUT = Duration.ofMillis(300);

    static Stream<Arguments> formsTransactionalOrNot() {
        return FormCase.all().flatMap(c -> Stream.of(Arguments.of(c, false), Arguments.of(c, true)));
    }

    @ParameterizedTest(name = "{0}, transactional {1}")
    @MethodSource("formsTransactionalOrNot")
    void aHandlerPastItsTimeoutIsInterruptedItsWritesRolledBackAndItsRowRetried(FormCase c, boolean transactional)
            throws Exception {
        TestDatabase db = c.db();
        TestTable.of(TABLE, c.form(), TestTable.Feature.ATTEMPT).create(db);
        db.execute("DROP TABLE IF EXISTS " + WRITES, "CREATE TABLE " + WRITES + " (attempt INTEGER NOT NULL)");
        AtomicBoolean interrupted = new AtomicBoolean();
        List<Integer> acked = new CopyOnWriteArrayList<>();
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.of("timeout", TestTable.of(TABLE, c.form(), TestTable.Feature.ATTEMPT).spec(),
                        Job.class, (job, d) -> {
                            if (transactional) {
                                try (PreparedStatement ps = d.connection().prepareStatement("INSERT INTO " + WRITES
                                        + " (attempt) VALUES (?)")) {
                                    ps.setInt(1, d.attempt());
                                    ps.executeUpdate();
                                }
                            }
                            if (d.attempt() == 1) {
                                try {
                                    Thread.sleep(60_000);
                                } catch (InterruptedException e) {
                                    interrupted.set(true);
                                    throw e;
                                }
                            }
                            acked.add(d.attempt());
                            return Outcome.ack();
                        }).handlerTimeout(TIMEOUT).retryBackoff(Duration.ZERO).transactional(transactional))
                .connect();
        List<String> logged;
        try {
            logged = LogCapture.during(() -> {
                broker.publisher("timeout", Job.class).publish(new Job(1));
                Eventually.await(() -> db.count(TABLE) == 0, Duration.ofSeconds(20),
                        () -> "the row is still there; acked on attempts " + acked);
            });
        } finally {
            broker.shutdown(Duration.ofSeconds(5));
        }
        assertThat(interrupted).as("the first attempt's handler was interrupted").isTrue();
        assertThat(acked).as("handled by the second attempt, once").containsExactly(2);
        assertThat(logged).anyMatch(line -> line.startsWith("WARNING queue timeout: the handler of row 1 ran longer"
                + " than its handler-timeout of 300 ms"));
        if (transactional) {
            assertThat(db.count(WRITES + " WHERE attempt = 1")).as("the timed-out attempt's write rolled back").isZero();
            assertThat(db.count(WRITES + " WHERE attempt = 2")).as("the second attempt's write kept").isEqualTo(1);
        }
    }

    /**
     * A handler that swallows the interrupt keeps its worker, but not its row: the keeper lets the
     * lease run out (lease form) or the row settles as a failed attempt beside it (the lock forms),
     * and the row is claimed again; the rows behind it are worked by a worker started in its place,
     * though the subscription has one.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.inbox.engine.FormCase#all")
    void aHandlerThatIgnoresTheInterruptHoldsItsRowNoLongerThanTheTimeoutAndTheLease(FormCase c) throws Exception {
        TestDatabase db = c.db();
        TestTable table = TestTable.of(TABLE, c.form(), TestTable.Feature.ATTEMPT);
        table.create(db);
        Duration lease = Duration.ofSeconds(2);
        AtomicBoolean letGo = new AtomicBoolean();
        AtomicLong stuckReturned = new AtomicLong();
        Map<Integer, List<Integer>> attempts = new ConcurrentHashMap<>();
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.of("timeout", table.spec(), Job.class, (job, d) -> {
                    if (job.n() == 1 && d.attempt() == 1) {
                        while (!letGo.get()) {
                            try {
                                Thread.sleep(10);
                            } catch (InterruptedException ignored) {
                                // a handler that ignores the interrupt
                            }
                        }
                        stuckReturned.incrementAndGet();
                        return Outcome.ack();
                    }
                    attempts.computeIfAbsent(job.n(), n -> new CopyOnWriteArrayList<>()).add(d.attempt());
                    return Outcome.ack();
                }).workers(1).lease(lease).handlerTimeout(TIMEOUT).retryBackoff(Duration.ZERO).batchSize(3))
                .connect();
        try {
            long start = System.nanoTime();
            for (int n = 1; n <= 6; n++) {
                broker.publisher("timeout", Job.class).publish(new Job(n));
            }
            // Far less than for ever: the timeout, the lease, and room for a slow machine.
            Eventually.await(() -> attempts.size() == 6 && db.count(TABLE) == 0, TIMEOUT.plus(lease).plusSeconds(8),
                    () -> "handled so far: " + attempts + ", rows left: " + db.count(TABLE));
            System.out.printf("HANDLER-TIMEOUT db=%s form=%s stuck row back and all handled after %d ms%n",
                    db.name().toLowerCase(), c.form().name().toLowerCase(), (System.nanoTime() - start) / 1_000_000);
            assertThat(stuckReturned).as("the stuck handler still runs").hasValue(0);
            assertThat(attempts.get(1)).as("the stuck row, claimed again").containsExactly(2);
            for (int n = 2; n <= 6; n++) {
                assertThat(attempts.get(n)).as("job %d, behind the stuck worker", n).containsExactly(1);
            }
            letGo.set(true);
            Eventually.await(() -> stuckReturned.get() == 1, Duration.ofSeconds(5), () -> "the stuck handler returned");
            Thread.sleep(300); // its settlement, which finds the row gone
            assertThat(attempts.get(1)).as("the late return settles nothing more").containsExactly(2);
        } finally {
            letGo.set(true);
            broker.shutdown(Duration.ofSeconds(5));
        }
    }
}
