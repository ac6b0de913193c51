package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.Column;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.internal.form.FormContext;
import dev.inbox.internal.form.FormPlan;
import dev.inbox.internal.form.InFlight;
import dev.inbox.internal.form.rowlock.RowLockForm;
import dev.inbox.internal.jdbc.ConnectionSource;
import dev.inbox.internal.jdbc.JdbcDeliveryTransactions;
import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.BrokerListener;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.TableShape;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The acks of a row lock claim on PostgreSQL: one statement for its rows with the commit of the
 * claim's transaction after it, sent together ({@code acksAndCommit}), where the acks and the
 * commit took a round trip each; and, where the next claim comes soon enough, sent before that
 * claim in its round trip ({@code acksCommitAndClaim}).
 */
class RowLockAcksTest {
    private static final String TABLE = "row_lock_ack_jobs";

    /** What the form did on its connections: the statements it prepared, and each commit. */
    private final List<String> calls = new CopyOnWriteArrayList<>();
    /** Connections the form took from its source. */
    private final AtomicInteger connections = new AtomicInteger();

    private final RecordedReports recorder = new RecordedReports();
    private final List<String> reports = recorder.lines;

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = "POSTGRES")
    void aClaimsAcksAndItsCommitGoTogether(TestDatabase db) throws Exception {
        FormPlan form = form(db, 4);

        List<InFlight> claimed = form.claimer().claim(Instant.now(), 3);
        assertThat(claimed).hasSize(3);
        calls.clear();
        claimed.forEach(RowLockAcksTest::ack);
        assertThat(stopsInTime(form)).as("no claim comes: the carry writes them as it stops").isTrue();

        assertThat(reports).hasSize(3).allMatch(r -> r.contains(" acked on "));
        assertThat(calls).as("the acks' statement carries the commit; the driver sends nothing for commit()")
                .containsExactly("prepare " + withCommit(db), "commit");
        assertThat(db.count(TABLE)).as("committed: another session sees the acked rows gone").isEqualTo(1);
        List<InFlight> rest = form.claimer().claim(Instant.now(), 3);
        assertThat(rest).as("and the claim's locks ended").hasSize(1);
        release(rest);
    }

    /**
     * Once its rows are worked, a claim's acks and its commit wait for the next claim, which sends
     * them before its own statement in one round trip on the worked claim's connection: one round
     * trip a batch, as a plain loop's next batch follows its commit. Where no claim comes, the carry
     * writes them.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = "POSTGRES")
    void aWorkersNextClaimCarriesTheAcksAndTheCommitOfTheClaimItWorked(TestDatabase db) throws Exception {
        FormPlan form = form(db, 4);
        List<InFlight> claimed = form.claimer().claim(Instant.now(), 3);
        calls.clear();
        int connectionsBefore = connections.get();
        claimed.forEach(RowLockAcksTest::ack);
        assertThat(reports).as("the acks wait for the next claim").isEmpty();
        assertThat(calls).isEmpty();

        List<InFlight> next = form.claimer().claim(Instant.now(), 3);

        assertThat(next).hasSize(1);
        assertThat(calls).as("the acks, the commit and the claim in one statement").containsExactly("prepare "
                + new Sql("carried", db.dialect().rowLock(shape(db)).acksCommitAndClaim()).jdbc());
        assertThat(connections.get()).as("on the claim's connection").isEqualTo(connectionsBefore);
        assertThat(reports).hasSize(3).allMatch(r -> r.contains(" acked on " + Thread.currentThread().getName()));
        assertThat(db.count(TABLE)).as("committed: another session sees the acked rows gone").isEqualTo(1);

        calls.clear();
        ack(next.get(0));
        assertThat(calls).isEmpty();
        assertThat(stopsInTime(form)).as("nothing left waiting").isTrue();
        assertThat(calls).as("no claim came: written on their own").containsExactly("prepare " + withCommit(db),
                "commit");
        assertThat(reports).hasSize(4);
        assertThat(db.count(TABLE)).isZero();
    }

    /**
     * Should the round trip that carries a claim's acks fail, whether they took is not known (the
     * claim after their commit may be what failed): each is reported failed, and no row is lost.
     * Here the acks fail (a trigger refuses the delete), so the claim's transaction rolls back and
     * its rows are back, for a claim on another connection.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = "POSTGRES")
    void acksCarriedByAClaimThatFailsAreReportedFailedAndTheirRowsComeBack(TestDatabase db) throws Exception {
        FormPlan form = form(db, 4);
        db.execute("CREATE OR REPLACE FUNCTION row_lock_ack_refused() RETURNS trigger LANGUAGE plpgsql AS"
                        + " $$ BEGIN RAISE EXCEPTION 'acks refused'; END $$",
                "CREATE TRIGGER refuse_acks BEFORE DELETE ON " + TABLE + " FOR EACH ROW EXECUTE FUNCTION"
                        + " row_lock_ack_refused()");
        List<InFlight> claimed = form.claimer().claim(Instant.now(), 3);
        claimed.forEach(RowLockAcksTest::ack);

        assertThatThrownBy(() -> form.claimer().claim(Instant.now(), 3)).hasMessageContaining("acks refused");

        assertThat(reports).hasSize(3).allMatch(r -> r.contains(" failed: ") && r.contains("acks refused"));
        assertThat(db.count(TABLE)).isEqualTo(4);
        List<InFlight> again = form.claimer().claim(Instant.now(), 4);
        assertThat(again).as("every row free to claim again").hasSize(4);
        release(again);
        assertThat(stopsInTime(form)).isTrue();
    }

    /**
     * In a drain nearly every claim's acks and commit ride with the next claim, whichever thread
     * makes it: at one worker, and at four.
     */
    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = {1, 4})
    void aDrainsClaimsCarryTheSettlementOfTheClaimsWorked(int workers) throws Exception {
        TestDatabase db = TestDatabase.POSTGRES;
        db.createLeaseTable(TABLE);
        int jobs = 640;
        db.execute("INSERT INTO " + TABLE + " (payload) SELECT convert_to('{\"n\":' || n || '}', 'UTF8')"
                + " FROM generate_series(1, " + jobs + ") n");
        javax.sql.DataSource pool = db.dataSource();
        javax.sql.DataSource recorded = (javax.sql.DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {javax.sql.DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(pool, method, args);
                    return method.getName().equals("getConnection") ? recording((Connection) result) : result;
                });
        Set<Object> handled = ConcurrentHashMap.newKeySet();
        AtomicInteger handledTwice = new AtomicInteger();
        InboxBroker broker = InboxBroker.fromDataSource(recorded).pollInterval(Duration.ofMillis(50))
                .subscribe(Subscription.of("acks", spec(), Job.class, (job, d) -> {
                    if (!handled.add(d.id())) {
                        handledTwice.incrementAndGet();
                    }
                    return Outcome.ack();
                }).workers(workers).batchSize(16).prefetch(32))
                .connect();
        try {
            Eventually.await(() -> db.count(TABLE) == 0, Duration.ofSeconds(30), () -> db.count(TABLE) + " left");
        } finally {
            broker.shutdown();
        }
        long carried = calls.stream().filter(c -> c.contains("; COMMIT; BEGIN; ")).count();
        long apart = calls.stream().filter(c -> c.startsWith("prepare ") && c.endsWith("; COMMIT")).count();
        assertThat(handled).hasSize(jobs);
        assertThat(handledTwice).hasValue(0);
        assertThat(carried).as("claims carrying acks (%d written apart)", apart).isGreaterThanOrEqualTo(3 * apart)
                .isGreaterThanOrEqualTo(jobs / 16 / 2);
    }

    private FormPlan form(TestDatabase db, int rows) throws Exception {
        db.createLeaseTable(TABLE); // its lease column unused: the description below has none
        Dialect dialect = db.dialect();
        ConnectionSource source = () -> {
            connections.incrementAndGet();
            return recording(db.dataSource().getConnection());
        };
        FormContext context = new FormContext("acks", shape(db), dialect, source,
                new JdbcDeliveryTransactions(source, dialect), recorder, new BrokerListener() {}, Clock.systemUTC(),
                new ObjectMapper(), true, null, new FormContext.Workload(1, 16, false, false),
                ConcurrentHashMap.newKeySet(), sql -> true);
        db.execute("INSERT INTO " + TABLE + " (payload) SELECT '\\x7b7d' FROM generate_series(1, " + rows + ")");
        return RowLockForm.open(context, dialect.rowLock(shape(db)));
    }

    private static InboxSpec spec() {
        return InboxSpec.table(TABLE, Column.of("id").generated()).attempt(Column.of("attempt").generated())
                .payload(Column.of("payload"));
    }

    private static TableShape shape(TestDatabase db) {
        return new TableShape(spec(), db.dialect()::quote, Map.of("id", "bigserial"));
    }

    private static String withCommit(TestDatabase db) {
        return new Sql("acks and commit", db.dialect().rowLock(shape(db)).acksAndCommit()).jdbc();
    }

    /** Acks {@code delivery} as the deliverer does: settled first, then handed to its claim. */
    private static void ack(InFlight delivery) {
        delivery.settleOnce(false, () -> true);
        delivery.claim().ack(delivery, Instant.now());
    }

    /** Stops the form's carry, which writes what waits: true when that took less than a second. */
    private static boolean stopsInTime(FormPlan form) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(1).toNanos();
        form.carry().stop(deadline);
        return System.nanoTime() < deadline;
    }

    /** Gives back rows a test claimed and did not settle, ending their claim's transaction. */
    private static void release(List<InFlight> rows) throws Exception {
        for (InFlight delivery : rows) {
            delivery.claim().release(delivery, false);
        }
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** {@code connection}, noting each statement prepared on it and each commit. */
    private Connection recording(Connection connection) {
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement")) {
                        calls.add("prepare " + args[0]);
                    } else if (method.getName().equals("commit")) {
                        calls.add("commit");
                    }
                    return invoke(connection, method, args);
                });
    }
}
