package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.AdvisoryLock;
import dev.inbox.Attempt;
import dev.inbox.ClaimForm;
import dev.inbox.Group;
import dev.inbox.Headers;
import dev.inbox.Id;
import dev.inbox.InboxSpec;
import dev.inbox.InboxTable;
import dev.inbox.LastError;
import dev.inbox.LockedUntil;
import dev.inbox.Outcome;
import dev.inbox.Payload;
import dev.inbox.Priority;
import dev.inbox.ProcessedAt;
import dev.inbox.PublishOptions;
import dev.inbox.Published;
import dev.inbox.PublishedAt;
import dev.inbox.Publisher;
import dev.inbox.RecurringJob;
import dev.inbox.RetryAfter;
import dev.inbox.Subscription;
import dev.inbox.UniqueKey;
import dev.inbox.schema.InboxSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The tables {@link InboxSchema} writes serve the engine on every database: a subscription with
 * a dead-letter table opens on each record shape, handles a job larger than 64 KiB, sends a
 * failing one to the dead letters; the pause and schedule tables serve pauses and recurring jobs;
 * the {@code IF NOT EXISTS} form runs at every start.
 */
class SchemaDdlTest {
    private static final String DEAD = "schema_dead";

    @InboxTable("schema_lease_jobs")
    record LeaseJob(@Id(generated = true) long id, @Attempt(generated = true) short attempt,
            @LockedUntil Instant lockedUntil, @Payload byte[] payload) {}

    /** Every optional column, a text payload. */
    @InboxTable("schema_full_jobs")
    record FullJob(@Id(generated = true) long id, @Attempt(generated = true) short attempt,
            @LockedUntil Instant lockedUntil, @RetryAfter Instant retryAfter, @ProcessedAt Instant processedAt,
            @PublishedAt Instant publishedAt, @Headers Map<String, String> headers, @Group String group,
            @Priority int priority, @UniqueKey String uniqueKey, @LastError String lastError,
            @Payload String payload) {}

    @InboxTable("schema_rowlock_jobs")
    record RowLockJob(@Id(generated = true) int id, @Attempt(generated = true) short attempt,
            @RetryAfter Instant retryAfter, @Group String group, @Priority int priority, @Payload byte[] payload) {}

    @InboxTable("schema_advisory_jobs")
    record AdvisoryJob(@Id(generated = true) long id, @Attempt(generated = true) short attempt,
            @AdvisoryLock String advisoryLock, @UniqueKey String uniqueKey, @Headers Map<String, String> headers,
            @Payload byte[] payload) {}

    /** A payload with room for text: the large job. */
    record Note(int n, String text) {}

    static Stream<Arguments> shapes() {
        return Stream.of(TestDatabase.values()).flatMap(db -> Stream.of(LeaseJob.class, FullJob.class,
                        RowLockJob.class, AdvisoryJob.class)
                .filter(shape -> !(db == TestDatabase.SQLITE && InboxSpec.of(shape).claimForm() == ClaimForm.ROW_LOCK))
                .map(shape -> Arguments.of(db, shape.getSimpleName(), shape)));
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("shapes")
    void aSubscriptionOpensOnTheGeneratedTablesAndWorksThem(TestDatabase db, String name, Class<?> shape)
            throws Exception {
        InboxSpec spec = InboxSpec.of(shape);
        create(db, List.of(spec.table(), DEAD), schema -> Stream.concat(schema.queue(shape).stream(),
                schema.deadLetter(shape, DEAD).stream()).toList());
        Set<Integer> handled = ConcurrentHashMap.newKeySet();
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(100))
                .subscribe(Subscription.of("schema", shape, Note.class, (note, delivery) -> {
                    if (note.n() < 0) {
                        throw new IllegalStateException("job " + note.n() + " fails for good");
                    }
                    handled.add(note.n());
                    return Outcome.ack();
                }).maxAttempts(1).deadLetter(DEAD))
                .connect();
        try {
            Publisher<Note> publisher = broker.publisher("schema", Note.class);
            assertThat(publisher.publish(new Note(1, "a".repeat(100_000)), options(spec, "big")))
                    .matches(Published::isNew);
            publisher.publish(new Note(-1, "poison"), options(spec, "poison"));
            String waiting = spec.table() + (spec.processedAt().isPresent() ? " WHERE processed_at IS NULL" : "");
            Eventually.await(() -> handled.contains(1) && db.count(DEAD) == 1 && db.count(waiting) == 0,
                    Duration.ofSeconds(30), () -> handled + " handled, " + db.count(DEAD) + " dead, "
                            + db.count(waiting) + " waiting");
        } finally {
            broker.shutdown();
        }
        assertThat(handled).containsExactly(1);
        if (spec.lastError().isPresent()) {
            assertThat(db.text("SELECT last_error FROM " + DEAD)).startsWith("java.lang.IllegalStateException: job -1"
                    + " fails for good\n\tat ");
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void thePauseScheduleAndSubscriberTablesServeTheirBroker(TestDatabase db) throws Exception {
        create(db, List.of("schema_lease_jobs", "schema_paused", "schema_schedule", "schema_subscribers"),
                schema -> Stream.of(schema.queue(LeaseJob.class), schema.pauseTable("schema_paused"),
                        schema.scheduleTable("schema_schedule"), schema.subscriberTable("schema_subscribers"))
                .flatMap(List::stream).toList());
        Set<Integer> handled = ConcurrentHashMap.newKeySet();
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(100))
                .pauseTable("schema_paused").scheduleTable("schema_schedule").subscriberTable("schema_subscribers")
                .recurring(RecurringJob.of("schema-tick", "* * * * * *", "schema", Note.class, due -> new Note(7, "tick")))
                .subscribe(Subscription.of("schema", LeaseJob.class, Note.class, (note, delivery) -> {
                    handled.add(note.n());
                    return Outcome.ack();
                }))
                .connect();
        try {
            broker.pause("schema");
            assertThat(broker.paused()).containsExactly("schema");
            broker.resume("schema");
            assertThat(broker.paused()).isEmpty();
            Eventually.await(() -> handled.contains(7), Duration.ofSeconds(30), () -> "a recurring job handled");
            assertThat(db.count("schema_subscribers")).as("the subscription's declaration").isEqualTo(1);
        } finally {
            broker.shutdown();
        }
        assertThat(db.count("schema_schedule")).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void theIfNotExistsFormRunsAgainOnTablesThatAreThere(TestDatabase db) throws Exception {
        create(db, List.of("schema_full_jobs", DEAD), schema -> List.of());
        for (int start = 0; start < 2; start++) {
            try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
                InboxSchema schema = InboxSchema.of(c).ifNotExists();
                for (String sql : Stream.concat(schema.queue(FullJob.class).stream(),
                        schema.deadLetter(FullJob.class, DEAD).stream()).toList()) {
                    s.execute(sql);
                }
            }
        }
        assertThat(db.count("schema_full_jobs")).isZero();
    }

    /** Drops {@code tables}, then runs what {@code ddl} writes for the database a connection reaches. */
    private static void create(TestDatabase db, List<String> tables,
            java.util.function.Function<InboxSchema, List<String>> ddl) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            for (String table : tables) {
                s.execute("DROP TABLE IF EXISTS " + table);
            }
            for (String sql : ddl.apply(InboxSchema.of(c))) {
                s.execute(sql);
            }
        }
    }

    /** Publish options that fill the optional columns a table has. */
    private static PublishOptions options(InboxSpec spec, String uniqueKey) {
        PublishOptions options = PublishOptions.NONE;
        if (spec.group().isPresent()) {
            options = options.group("g1");
        }
        if (spec.priority().isPresent()) {
            options = options.priority(5);
        }
        if (spec.headers().isPresent()) {
            options = options.header("trace", "t-1");
        }
        return spec.uniqueKey().isPresent() ? options.uniqueKey(uniqueKey) : options;
    }
}
