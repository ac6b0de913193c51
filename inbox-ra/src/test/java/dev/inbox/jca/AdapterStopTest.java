package dev.inbox.jca;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.RecurringJob;
import dev.inbox.ShutdownReport;
import dev.inbox.Subscription;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;
import java.net.URL;
import java.net.URLClassLoader;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Timer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How the adapter stops, in Open Liberty's order (docs/SERVERS.md): the server deactivates the
 * message-driven beans as its quiesce begins, which starts the drain of the bean's application's
 * handlers at once; the application's own stop comes later and finds them drained. Once the adapter
 * has stopped, no timed signal hands the server a task.
 */
class AdapterStopTest {
    private StandInServer server;
    private InboxResourceAdapter adapter;

    /** A job of the application's queue. */
    record Ticket(long job) {}

    @BeforeEach
    void start() throws Exception {
        server = new StandInServer();
        try (Connection c = server.pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE app_jobs (id INTEGER PRIMARY KEY, attempt INTEGER NOT NULL DEFAULT 1,"
                    + " locked_until TEXT, payload BLOB NOT NULL)");
            s.execute("CREATE TABLE inbox_schedule (name VARCHAR(200) PRIMARY KEY, cron VARCHAR(200) NOT NULL,"
                    + " next_due TEXT NOT NULL)");
        }
        adapter = server.startAdapter();
    }

    @AfterEach
    void stop() {
        adapter.stop();
        server.close();
    }

    @Test
    void aBeansDeactivationDrainsItsApplicationsHandlersBeforeTheApplicationStops() throws Exception {
        HandlerInWork report = registerWithAHandlerInWork(Thread.currentThread().getContextClassLoader());
        MessageEndpointFactory bean = activateABean();

        adapter.endpointDeactivation(bean, null);
        assertThat(report.cutOff.await(5, TimeUnit.SECONDS))
                .as("the application's handler cut off at the drain timeout (1 s), the application still running")
                .isTrue();
        awaitCount("app_jobs WHERE locked_until IS NULL", 1);

        long begin = System.nanoTime();
        ShutdownReport stopped = adapter.unregister("app");
        assertThat(Duration.ofNanos(System.nanoTime() - begin)).as("the application's stop, its handlers drained")
                .isLessThan(Duration.ofSeconds(1));
        assertThat(stopped.handlersCutOff()).isEqualTo(1);
        assertThat(count("app_jobs")).as("the job kept, to be claimed again").isEqualTo(1);
    }

    @Test
    void anotherApplicationsBeanLeavesTheHandlersAlone() throws Exception {
        ClassLoader another = new URLClassLoader(new URL[0], null); // loads none of the bean's classes
        HandlerInWork report = registerWithAHandlerInWork(another);
        MessageEndpointFactory bean = activateABean();

        adapter.endpointDeactivation(bean, null);
        assertThat(report.cutOff.await(2, TimeUnit.SECONDS)).as("the handler still running").isFalse();
        assertThat(adapter.unregister("app").handlersCutOff()).isEqualTo(1);
    }

    @Test
    void noTimedSignalReachesTheServerOnceTheAdapterStopped() throws Exception {
        RecurringJob<Ticket> everySecond = RecurringJob.of("tick", "* * * * * *", "apps", Ticket.class,
                due -> new Ticket(due.getEpochSecond()));
        adapter.register(new Registration("ticking", server.pool, List.of(), Map.of("apps", InboxSpec.of(AppJob.class)),
                Runnable::run, null, Map.of(), null, null, List.of(everySecond), null, null, null, null));
        awaitCount("app_jobs", 1);

        adapter.stop();
        int submitted = server.workStarted.get();
        Thread.sleep(2_500); // two occurrences, had its timer run on
        assertThat(server.workStarted.get()).as("Work submitted after the stop").isEqualTo(submitted);
    }

    @Test
    void signalsScheduledBeforeTheStopAreCancelledAndLaterOnesRefusedQuietly() throws Exception {
        WorkManagerThreads threads = new WorkManagerThreads(server.bootstrap().getWorkManager(), new Timer(true));
        AtomicInteger fired = new AtomicInteger();
        threads.schedule(Duration.ofMillis(300), () -> threads.run("late", fired::incrementAndGet));
        threads.stop();
        threads.schedule(Duration.ZERO, fired::incrementAndGet);
        Thread.sleep(600);
        assertThat(fired).as("signals run").hasValue(0);
        assertThatThrownBy(() -> threads.run("after the stop", fired::incrementAndGet))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("has stopped");
        assertThat(server.workStarted).as("Work submitted").hasValue(0);
    }

    /** A handler in work, whose interruption says it was cut off. */
    private static final class HandlerInWork {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch cutOff = new CountDownLatch(1);

        Outcome work() throws InterruptedException {
            started.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                cutOff.countDown();
                throw e;
            }
            return Outcome.ack();
        }
    }

    /** Registers application "app" as if it started with {@code classes} as its class loader, its one job in work. */
    private HandlerInWork registerWithAHandlerInWork(ClassLoader classes) throws Exception {
        HandlerInWork handler = new HandlerInWork();
        Subscription<Ticket> tickets = Subscription.of("apps", InboxSpec.of(AppJob.class), Ticket.class,
                (ticket, delivery) -> handler.work());
        Thread thread = Thread.currentThread();
        ClassLoader own = thread.getContextClassLoader();
        thread.setContextClassLoader(classes);
        try {
            adapter.register(new Registration("app", server.pool, List.of(tickets), Map.of(), Runnable::run, null,
                    Map.of(), null, null, null, null, null, null, null));
        } finally {
            thread.setContextClassLoader(own);
        }
        try (Connection c = server.pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("INSERT INTO app_jobs (payload) VALUES ('{\"job\":1}')");
        }
        assertThat(handler.started.await(10, TimeUnit.SECONDS)).isTrue();
        return handler;
    }

    private MessageEndpointFactory activateABean() throws Exception {
        MessageEndpointFactory bean = server.bean((payload, delivery) -> Outcome.ack(), false);
        InboxActivationSpec spec = new InboxActivationSpec();
        spec.setQueue("beans");
        spec.setTable(BeanJob.class.getName());
        adapter.endpointActivation(bean, spec);
        return bean;
    }

    private void awaitCount(String rows, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (count(rows) != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(count(rows)).as(rows).isEqualTo(expected);
    }

    private long count(String rows) {
        return server.count(rows);
    }
}
