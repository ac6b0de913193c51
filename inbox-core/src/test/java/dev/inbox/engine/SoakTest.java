package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.ClaimForm;
import dev.inbox.Outcome;
import dev.inbox.Publisher;
import dev.inbox.ShutdownReport;
import dev.inbox.Subscription;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Steady publish and drain for {@code inbox.soak.minutes} (default 30) on PostgreSQL and MariaDB:
 * publishers insert at a fixed rate through the broker's {@link Publisher} into a lease table and a
 * row lock table, the broker drains both, and once a minute one line reports what must stay flat
 * (heap, connections, the tables' size, dead tuples). Tagged {@code soak}: only the {@code soak}
 * profile runs it.
 *
 * <pre>
 * mvn -B -pl inbox-core -am verify -Psoak -Dinbox.soak.minutes=30
 * </pre>
 *
 * Other knobs: {@code inbox.soak.databases} (default {@code POSTGRES,MARIADB}),
 * {@code inbox.soak.rate} (jobs/s in all, default 300: two thirds to the lease table),
 * {@code inbox.soak.vacuum} ({@code auto}: the server's autovacuum, or where the server
 * runs without it, a plain VACUUM by the test after each minute's sample; {@code test}; {@code none})
 * and {@code inbox.soak.postgres.storage} (storage parameters for the PostgreSQL tables'
 * {@code WITH (..)}, such as {@code fillfactor=70}; docs/QUEUE-TABLES.md explains them).
 */
@Tag("soak")
class SoakTest {
    private static final int MINUTES = Integer.getInteger("inbox.soak.minutes", 30);
    private static final int RATE = Integer.getInteger("inbox.soak.rate", 300);
    private static final String VACUUM = System.getProperty("inbox.soak.vacuum", "auto");
    private static final String POSTGRES_STORAGE = System.getProperty("inbox.soak.postgres.storage", "").trim();
    private static final int CONNECTION_LIMIT = 16;
    private static final String LEASE_TABLE = "soak_lease_jobs";
    private static final String ROW_LOCK_TABLE = "soak_row_lock_jobs";
    /** About the size of a small real payload, well below PostgreSQL's TOAST threshold. */
    private static final String TEXT = "x".repeat(200);

    /** The payload: its number, by which the test tracks it, and some text. */
    record Work(int n, String text) {}

    /** PostgreSQL and MariaDB, or those {@code inbox.soak.databases} lists (such as {@code POSTGRES}). */
    static List<TestDatabase> databases() {
        return Arrays.stream(System.getProperty("inbox.soak.databases", "POSTGRES,MARIADB").split(","))
                .map(name -> TestDatabase.valueOf(name.trim().toUpperCase(Locale.ROOT))).toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void steadyPublishAndDrainStayFlat(TestDatabase db) throws Exception {
        // The monitor's own connection, in autocommit so it never holds back vacuum or purge; the
        // shared test pool is left alone, so the sessions this process holds are the broker's and this one.
        try (Connection monitor = DriverManager.getConnection(db.url())) {
            Feed lease = new Feed("soak_lease", RATE * 2 / 3, 2);
            Feed rowLock = new Feed("soak_row_lock", RATE - lease.rate, 1);
            List<Feed> feeds = List.of(lease, rowLock);
            create(db, monitor);
            String vacuum = vacuum(db, monitor);
            boolean testVacuums = vacuum.equals("test");
            System.out.printf("SOAK db=%s minutes=%d rate=%d/s lease=%d/s(4 workers) row_lock=%d/s(2 workers)"
                    + " connection_limit=%d vacuum=%s storage=%s%n", name(db), MINUTES, RATE, lease.rate, rowLock.rate,
                    CONNECTION_LIMIT, vacuum,
                    POSTGRES_STORAGE.isEmpty() || db != TestDatabase.POSTGRES ? "default" : POSTGRES_STORAGE);
            // The application's pool, sized and set as the broker's own would be, so the soak can watch it.
            HikariConfig poolConfig = new HikariConfig();
            poolConfig.setJdbcUrl(db.url());
            poolConfig.setMaximumPoolSize(CONNECTION_LIMIT);
            if (db == TestDatabase.MARIADB) {
                poolConfig.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
            }
            HikariDataSource pool = new HikariDataSource(poolConfig);
            InboxBroker broker = InboxBroker.fromDataSource(pool)
                    .listenNotify(db == TestDatabase.POSTGRES)
                    .subscribe(Subscription.of(lease.queue, TestTable.of(LEASE_TABLE, ClaimForm.LEASE,
                            TestTable.Feature.ATTEMPT).spec(), Work.class, lease::handle).workers(4))
                    .subscribe(Subscription.of(rowLock.queue, TestTable.of(ROW_LOCK_TABLE, ClaimForm.ROW_LOCK,
                            TestTable.Feature.ATTEMPT).spec(), Work.class, rowLock::handle).workers(2))
                    .connect();
            List<Sample> samples = new ArrayList<>();
            try {
                for (Feed s : feeds) {
                    s.start(broker.publisher(s.queue, Work.class));
                }
                long start = System.nanoTime();
                for (int minute = 1; minute <= MINUTES; minute++) {
                    long wait = start + TimeUnit.MINUTES.toNanos(minute) - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    Sample sample = sample(db, monitor, pool, feeds, minute);
                    samples.add(sample);
                    System.out.println(sample.line(db));
                    if (testVacuums) {
                        // After the sample, as a daemon with a one-minute naptime would: the next
                        // sample shows what a minute leaves behind.
                        execute(monitor, "VACUUM " + LEASE_TABLE + ", " + ROW_LOCK_TABLE);
                    }
                }
                for (Feed s : feeds) {
                    s.stop();
                }
                // However long the backlog, the drain may finish it as long as it makes progress.
                long handled = -1;
                long lastProgress = System.nanoTime();
                while (!feeds.stream().allMatch(Feed::drained) || backlog(monitor) > 0) {
                    long now = feeds.stream().mapToLong(s -> s.handled.get()).sum();
                    if (now != handled) {
                        handled = now;
                        lastProgress = System.nanoTime();
                    } else if (System.nanoTime() - lastProgress > TimeUnit.MINUTES.toNanos(1)) {
                        break;
                    }
                    Thread.sleep(200);
                }
            } finally {
                for (Feed s : feeds) {
                    s.stop();
                }
                ShutdownReport report = broker.shutdown(Duration.ofSeconds(10));
                pool.close();
                System.out.printf("SOAK db=%s shutdown %s%n", name(db), report);
            }
            long finalBacklog = backlog(monitor);
            for (Feed s : feeds) {
                System.out.printf("SOAK db=%s queue=%s published=%d handled=%d publish_failures=%d lost=%d"
                        + " handled_twice=%d final_backlog=%d%n", name(db), s.queue, s.published.get(), s.handled.get(),
                        s.publishFailures.get(), s.lost(), s.twice(), finalBacklog);
            }
            check(db, samples, feeds, finalBacklog);
        }
    }

    /**
     * The bounds, comparing the first minutes (a third of the run, at most three) with as many
     * last ones. They are tolerant of a shared two-core machine, yet a leak or a stalled vacuum
     * that runs for the 30 minutes breaks them; runs of a few minutes catch only fast growth (tables
     * nothing vacuums break the size bound within three minutes).
     */
    private static void check(TestDatabase db, List<Sample> samples, List<Feed> feeds, long finalBacklog) {
        assertThat(finalBacklog).as("rows left when the drain stopped making progress").isZero();
        for (Feed s : feeds) {
            // Nothing lost, nothing twice: the broker's steady state is exactly once.
            assertThat(s.publishFailures.get()).as(s.queue + ": failed publishes (last: %s)", s.lastFailure.get())
                    .isZero();
            assertThat(s.lost()).as(s.queue + ": published jobs never handled").isZero();
            assertThat(s.twice()).as(s.queue + ": jobs handled more than once").isZero();
            assertThat(s.handled.get()).as(s.queue + ": handled").isEqualTo(s.published.get());
        }
        int window = Math.max(1, Math.min(3, samples.size() / 3));
        List<Sample> first = samples.subList(0, window);
        List<Sample> last = samples.subList(samples.size() - window, samples.size());
        // A drain that falls behind for good piles up rows: at the last samples at most 30 seconds of
        // publishing waits. A busy machine causes spikes of a few seconds; a drain 2% short of the
        // rate for 30 minutes leaves a minute's worth.
        assertThat(max(last, Sample::backlog)).as("backlog in the last minutes").isLessThanOrEqualTo(RATE * 30);
        // Heap after a full GC: the tracking arrays are allocated up front, so what grows is the
        // engine's. Twice the first minutes' heap plus 16 MB lets the JIT and class loading settle;
        // a leak of 100 bytes a job over 30 minutes at 300 jobs/s (54 MB) breaks it.
        assertThat(average(last, Sample::heap)).as("heap in the last minutes (MB)")
                .isLessThanOrEqualTo(2 * average(first, Sample::heap) + 16);
        // The pool cannot pass its limit; the server's sessions from this process can, if anything
        // opens connections beside the pool.
        assertThat(max(samples, Sample::pool)).as("the broker's pool").isLessThanOrEqualTo(CONNECTION_LIMIT);
        assertThat(max(samples, Sample::sessions)).as("sessions this process holds on the server, beside the monitor")
                .isLessThanOrEqualTo(CONNECTION_LIMIT);
        // A thread per claim or per wake that never ends shows here; the JIT's and GC's own threads vary a little.
        assertThat(max(last, Sample::threads)).as("threads").isLessThanOrEqualTo(max(first, Sample::threads) + 8);
        // Freed space is reused once vacuum (PostgreSQL) or purge (InnoDB) keeps up, so the tables
        // stop growing after the first minutes; without vacuum they grow with every minute's churn.
        assertThat(max(last, Sample::sizeKb)).as("the tables' size in the last minutes (kB)")
                .isLessThanOrEqualTo(2 * max(first, Sample::sizeKb) + 1024);
        if (db == TestDatabase.POSTGRES) {
            // Each job leaves up to two dead tuples (the claim's update, which HOT pruning mostly
            // clears by itself, and the ack's delete). Vacuum once a minute holds them below a few
            // minutes' churn; stalled, they climb with every minute.
            double churnPerMinute = RATE * 60.0 * 2;
            assertThat(max(last, Sample::dead)).as("dead tuples in the last minutes")
                    .isLessThanOrEqualTo(2 * max(first, Sample::dead) + 2 * churnPerMinute);
        }
    }

    private static void create(TestDatabase db, Connection c) throws SQLException {
        String storage = db == TestDatabase.POSTGRES && !POSTGRES_STORAGE.isEmpty() ? " WITH (" + POSTGRES_STORAGE + ")"
                : "";
        for (String table : List.of(LEASE_TABLE, ROW_LOCK_TABLE)) {
            String lease = table.equals(LEASE_TABLE)
                    ? (db == TestDatabase.POSTGRES ? ", locked_until TIMESTAMPTZ" : ", locked_until DATETIME NULL") : "";
            execute(c, "DROP TABLE IF EXISTS " + table, db == TestDatabase.POSTGRES
                    ? "CREATE TABLE " + table + " (id BIGSERIAL PRIMARY KEY, attempt SMALLINT NOT NULL DEFAULT 1"
                            + lease + ", payload BYTEA NOT NULL)" + storage
                    : "CREATE TABLE " + table + " (id BIGINT AUTO_INCREMENT PRIMARY KEY,"
                            + " attempt SMALLINT NOT NULL DEFAULT 1" + lease + ", payload BLOB NOT NULL) ENGINE=InnoDB");
        }
    }

    /**
     * Who vacuums the tables: {@code autovacuum}, {@code test} (asked for, or the server runs no
     * autovacuum), {@code none} (asked for, and the server runs none); InnoDB's {@code purge} on MariaDB.
     */
    private static String vacuum(TestDatabase db, Connection c) throws SQLException {
        if (db != TestDatabase.POSTGRES) {
            return "purge";
        }
        boolean autovacuum = text(c, "SHOW autovacuum").equals("on");
        if (VACUUM.equals("test") || VACUUM.equals("none")) {
            return VACUUM.equals("none") && autovacuum ? "autovacuum" : VACUUM;
        }
        if (!autovacuum) {
            System.out.println("SOAK db=postgres: autovacuum is off on this server; the test vacuums its tables after"
                    + " each minute's sample instead (-Dinbox.soak.vacuum=none to watch them grow without)");
        }
        return autovacuum ? "autovacuum" : "test";
    }

    private static Sample sample(TestDatabase db, Connection c, HikariDataSource pool, List<Feed> feeds, int minute)
            throws SQLException {
        for (int i = 0; i < 2; i++) {
            System.gc();
        }
        double heapMb = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1048576.0;
        int threads = ManagementFactory.getThreadMXBean().getThreadCount();
        int poolTotal = pool.getHikariPoolMXBean().getTotalConnections();
        long published = feeds.stream().mapToLong(s -> s.published.get()).sum();
        long handled = feeds.stream().mapToLong(s -> s.handled.get()).sum();
        long backlog = backlog(c);
        int sessions = sessions(db, c);
        long sizeKb = 0;
        long dead = 0;
        List<String> detail = new ArrayList<>();
        if (db == TestDatabase.POSTGRES) {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT relname,"
                    + " pg_total_relation_size(relid), n_dead_tup, n_tup_upd, n_tup_hot_upd,"
                    + " vacuum_count + autovacuum_count FROM pg_stat_user_tables WHERE schemaname = current_schema()"
                    + " AND relname IN ('" + LEASE_TABLE + "', '" + ROW_LOCK_TABLE + "') ORDER BY relname")) {
                while (rs.next()) {
                    sizeKb += rs.getLong(2) / 1024;
                    dead += rs.getLong(3);
                    long updates = rs.getLong(4);
                    detail.add(String.format(Locale.ROOT, "%s %d kB dead %d hot %d%% vacuums %d", rs.getString(1),
                            rs.getLong(2) / 1024, rs.getLong(3), updates == 0 ? 0 : 100 * rs.getLong(5) / updates,
                            rs.getLong(6)));
                }
            }
        } else {
            // InnoDB's sizes in information_schema come from its persistent statistics: refresh them first.
            try (Statement s = c.createStatement()) {
                s.executeQuery("ANALYZE TABLE " + LEASE_TABLE + ", " + ROW_LOCK_TABLE).close();
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT t.TABLE_NAME,"
                    + " t.DATA_LENGTH + t.INDEX_LENGTH, t.DATA_FREE, f.FILE_SIZE FROM information_schema.TABLES t"
                    + " LEFT JOIN information_schema.INNODB_SYS_TABLESPACES f"
                    + " ON f.NAME = CONCAT(t.TABLE_SCHEMA, '/', t.TABLE_NAME)"
                    + " WHERE t.TABLE_SCHEMA = DATABASE() AND t.TABLE_NAME IN ('" + LEASE_TABLE + "', '" + ROW_LOCK_TABLE
                    + "') ORDER BY t.TABLE_NAME")) {
                while (rs.next()) {
                    sizeKb += rs.getLong(2) / 1024;
                    detail.add(String.format(Locale.ROOT, "%s %d kB free %d kB file %d kB", rs.getString(1),
                            rs.getLong(2) / 1024, rs.getLong(3) / 1024, rs.getLong(4) / 1024));
                }
            }
            // No dead-tuple count per table: the server-wide history list length tells whether purge keeps up.
            dead = Long.parseLong(text(c, "SELECT COUNT FROM information_schema.INNODB_METRICS"
                    + " WHERE NAME = 'trx_rseg_history_len'"));
        }
        return new Sample(minute, published, handled, backlog, heapMb, threads, poolTotal, sessions, sizeKb, dead,
                String.join("; ", detail));
    }

    /** The server's sessions whose client port is one of this process's connections, the monitor's own left out. */
    private static int sessions(TestDatabase db, Connection c) throws SQLException {
        String address = db.url().substring("jdbc:".length());
        int port = URI.create(address).getPort();
        Set<Integer> ports = ProcessSockets.localPortsTo(port != -1 ? port : db == TestDatabase.POSTGRES ? 5432 : 3306);
        if (ports == null) {
            return -1;
        }
        String sql = db == TestDatabase.POSTGRES
                ? "SELECT client_port FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND client_port IS NOT NULL"
                : "SELECT SUBSTRING_INDEX(HOST, ':', -1) FROM information_schema.PROCESSLIST"
                        + " WHERE ID <> CONNECTION_ID() AND HOST LIKE '%:%'";
        int mine = 0;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                if (ports.contains(rs.getInt(1))) {
                    mine++;
                }
            }
        }
        return mine;
    }

    private static long backlog(Connection c) throws SQLException {
        return Long.parseLong(text(c, "SELECT (SELECT COUNT(*) FROM " + LEASE_TABLE + ") + (SELECT COUNT(*) FROM "
                + ROW_LOCK_TABLE + ")"));
    }

    private static String text(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void execute(Connection c, String... statements) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    private static String name(TestDatabase db) {
        return db.name().toLowerCase(Locale.ROOT);
    }

    private static double max(List<Sample> samples, ToDoubleFunction<Sample> value) {
        return samples.stream().mapToDouble(value).max().orElse(0);
    }

    private static double average(List<Sample> samples, ToDoubleFunction<Sample> value) {
        return samples.stream().mapToDouble(value).average().orElse(0);
    }

    /** One minute's figures; {@code dead} is n_dead_tup on PostgreSQL, InnoDB's history list length on MariaDB. */
    record Sample(int minute, long published, long handled, long backlog, double heap, int threads, int pool,
            int sessions, long sizeKb, long dead, String detail) {

        String line(TestDatabase db) {
            return String.format(Locale.ROOT, "SOAK db=%s minute=%d published=%d handled=%d backlog=%d heap_mb=%.1f"
                    + " threads=%d pool=%d/%d sessions=%s size_kb=%d %s=%d | %s", name(db), minute, published, handled,
                    backlog, heap, threads, pool, CONNECTION_LIMIT, sessions < 0 ? "n/a" : String.valueOf(sessions),
                    sizeKb, db == TestDatabase.POSTGRES ? "dead" : "history_len", dead, detail);
        }
    }

    /**
     * One queue: its publishers, at a fixed rate, and what its handler saw. The counts per job are
     * allocated up front for the whole run, so they do not show as heap growth.
     */
    private static final class Feed {
        final String queue;
        final int rate;
        final int publishers;
        final AtomicIntegerArray publishedFlags;
        final AtomicIntegerArray handledTimes;
        final AtomicInteger next = new AtomicInteger();
        final AtomicLong published = new AtomicLong();
        final AtomicLong handled = new AtomicLong();
        final AtomicLong publishFailures = new AtomicLong();
        final AtomicReference<Exception> lastFailure = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        volatile boolean running = true;

        Feed(String queue, int rate, int publishers) {
            this.queue = queue;
            this.rate = rate;
            this.publishers = publishers;
            int capacity = (int) Math.min(Integer.MAX_VALUE - 8, (long) rate * 60 * (MINUTES + 3));
            this.publishedFlags = new AtomicIntegerArray(capacity);
            this.handledTimes = new AtomicIntegerArray(capacity);
        }

        Outcome handle(Work work, dev.inbox.Delivery delivery) throws InterruptedException {
            if (work.n() % 100 == 0) {
                Thread.sleep(2); // a few handlers take a while
            }
            handledTimes.incrementAndGet(work.n());
            handled.incrementAndGet();
            return Outcome.ack();
        }

        void start(Publisher<Work> publisher) {
            long period = TimeUnit.SECONDS.toNanos(1) * publishers / rate;
            for (int p = 0; p < publishers; p++) {
                Thread thread = new Thread(() -> {
                    long due = System.nanoTime();
                    while (running) {
                        due += period;
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            LockSupport.parkNanos(wait);
                        }
                        int n = next.getAndIncrement();
                        if (n >= publishedFlags.length()) {
                            return;
                        }
                        try {
                            publisher.publish(new Work(n, TEXT));
                            publishedFlags.set(n, 1);
                            published.incrementAndGet();
                        } catch (RuntimeException e) {
                            publishFailures.incrementAndGet();
                            lastFailure.set(e);
                        }
                    }
                }, "soak-publisher-" + queue + "-" + p);
                thread.setDaemon(true);
                thread.start();
                threads.add(thread);
            }
        }

        void stop() throws InterruptedException {
            running = false;
            for (Thread thread : threads) {
                thread.join();
            }
        }

        boolean drained() {
            return handled.get() >= published.get();
        }

        long lost() {
            long lost = 0;
            for (int n = 0; n < Math.min(next.get(), publishedFlags.length()); n++) {
                if (publishedFlags.get(n) == 1 && handledTimes.get(n) == 0) {
                    lost++;
                }
            }
            return lost;
        }

        long twice() {
            return countWhere(times -> times > 1);
        }

        private long countWhere(java.util.function.IntPredicate test) {
            long count = 0;
            for (int n = 0; n < handledTimes.length(); n++) {
                if (test.test(handledTimes.get(n))) {
                    count++;
                }
            }
            return count;
        }
    }
}
