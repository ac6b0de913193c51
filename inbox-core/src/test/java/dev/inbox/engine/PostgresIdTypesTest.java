package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.ClaimForm;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * On PostgreSQL the statements for a list of rows (the acks of a claim or of the ack writer, the
 * advisory take and count) bind the ids as one array that the statement casts to the id column's
 * type: integers go as a {@code bigint} array, other ids as text. Each id type the dialect lists
 * drains whole in each form, every job handled once.
 */
class PostgresIdTypesTest {

    @ParameterizedTest(name = "{0}, id {1}, processed_at {2}")
    @MethodSource("cases")
    void aDrainAcksEveryRowWhateverTheIdsType(ClaimForm form, String idType, boolean processedAt) {
        TestDatabase db = TestDatabase.POSTGRES;
        TestTable table = processedAt
                ? TestTable.of("id_type_jobs", form, TestTable.Feature.ATTEMPT, TestTable.Feature.PROCESSED_AT)
                : TestTable.of("id_type_jobs", form, TestTable.Feature.ATTEMPT);
        table.create(db);
        db.execute(retype(table.name(), idType));
        int jobs = 200;
        Set<Object> handled = ConcurrentHashMap.newKeySet();
        Set<Object> twice = ConcurrentHashMap.newKeySet();
        Subscription<Job> subscription = Subscription.of("ids", table.spec(), Job.class, (job, delivery) -> {
            if (!handled.add(delivery.id())) {
                twice.add(delivery.id());
            }
            return Outcome.ack();
        }).workers(4).batchSize(16).prefetch(32);
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(50))
                .subscribe(subscription).connect();
        String left = "SELECT count(*) FROM " + table.name() + (processedAt ? " WHERE processed_at IS NULL" : "");
        try {
            broker.publisher("ids", Job.class).publishAll(IntStream.range(0, jobs).mapToObj(Job::new).toList());
            broker.wake("ids");
            Eventually.await(() -> rows(db, left) == 0 && handled.size() == jobs, Duration.ofSeconds(60),
                    () -> rows(db, left) + " rows not acked, " + handled.size() + " handled");
        } finally {
            broker.shutdown();
        }
        assertThat(twice).as("rows handled twice").isEmpty();
        assertThat(handled).hasSize(jobs).allSatisfy(id -> assertThat(id).isInstanceOf(javaType(idType)));
        assertThat(rows(db, left)).isZero();
    }

    /** The table's id column, a bigserial as created, changed to {@code idType} (the table is empty). */
    private static String retype(String table, String idType) {
        String alter = "ALTER TABLE " + table + " ALTER COLUMN id DROP DEFAULT, ALTER COLUMN id TYPE %s,"
                + " ALTER COLUMN id SET DEFAULT %s";
        return switch (idType) {
            case "integer" -> "ALTER TABLE " + table + " ALTER COLUMN id TYPE integer";
            case "uuid" -> alter.formatted("uuid USING gen_random_uuid()", "gen_random_uuid()");
            case "text" -> alter.formatted("text", "md5(random()::text)");
            default -> throw new IllegalArgumentException(idType);
        };
    }

    private static long rows(TestDatabase db, String sql) {
        try {
            return db.number(sql);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Class<?> javaType(String idType) {
        return switch (idType) {
            case "integer" -> Long.class; // every whole-number id is a Long (RowIds)
            case "uuid" -> java.util.UUID.class;
            default -> String.class;
        };
    }

    static Stream<Arguments> cases() {
        return Stream.concat(
                Stream.of(ClaimForm.LEASE, ClaimForm.ROW_LOCK, ClaimForm.ADVISORY).flatMap(form -> Stream
                        .of("integer", "uuid", "text").map(idType -> Arguments.of(form, idType, false))),
                Stream.of(Arguments.of(ClaimForm.LEASE, "uuid", true), Arguments.of(ClaimForm.LEASE, "integer", true)));
    }
}
