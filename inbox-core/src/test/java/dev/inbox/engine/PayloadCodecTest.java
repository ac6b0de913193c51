package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import dev.inbox.Column;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.json.bind.annotation.JsonbCreator;
import jakarta.json.bind.annotation.JsonbProperty;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The application's own JSON-B or Jackson mapper writes and reads its payloads. */
class PayloadCodecTest {
    private static final String TABLE = "codec_jobs";

    /** A record renamed by JSON-B, with a java.time field. */
    public record Order(@JsonbProperty("order_no") long number, Instant placed) {}

    /** A class JSON-B builds through its creator. */
    public static final class Refund {
        private final String reason;

        @JsonbCreator
        public Refund(@JsonbProperty("why") String reason) {
            this.reason = reason;
        }

        @JsonbProperty("why")
        public String getReason() {
            return reason;
        }
    }

    /** Neither a record nor a class with a constructor JSON-B can use. */
    public static final class Opaque {
        private Opaque() {}
    }

    /** A money amount Jackson writes as one string through the application's module only. */
    public record Amount(long cents) {}

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void jsonbWritesAndReadsTheApplicationsMapping(TestDatabase db) throws Exception {
        createTable(db);
        Instant placed = Instant.parse("2026-12-07T10:15:30Z");
        try (Jsonb jsonb = JsonbBuilder.create()) {
            String stored = publish(db, b -> b.jsonb(jsonb), Order.class, new Order(7, placed));
            assertThat(stored).contains("\"order_no\"").contains("2026-12-07T10:15:30Z").doesNotContain("number");
            assertThat(handle(db, b -> b.jsonb(jsonb), Order.class)).containsExactly(new Order(7, placed));

            publish(db, b -> b.jsonb(jsonb), Refund.class, new Refund("damaged"));
            assertThat(db.text("SELECT body FROM " + TABLE)).contains("\"why\"");
            assertThat(handle(db, b -> b.jsonb(jsonb), Refund.class)).extracting(Refund::getReason)
                    .containsExactly("damaged");
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void jacksonPayloadsGoThroughTheApplicationsMapper(TestDatabase db) {
        createTable(db);
        ObjectMapper mapper = InboxBroker.defaultJson().registerModule(new SimpleModule("amounts")
                .addSerializer(Amount.class, new JsonSerializer<>() {
                    @Override
                    public void serialize(Amount value, JsonGenerator out, SerializerProvider p) throws IOException {
                        out.writeString(value.cents() / 100 + "." + String.format("%02d", value.cents() % 100));
                    }
                })
                .addDeserializer(Amount.class, new JsonDeserializer<>() {
                    @Override
                    public Amount deserialize(JsonParser in, DeserializationContext c) throws IOException {
                        return new Amount(Math.round(Double.parseDouble(in.getValueAsString()) * 100));
                    }
                }));
        String stored = publish(db, b -> b.json(mapper), Amount.class, new Amount(1250));
        assertThat(stored.replace(" ", "")).isEqualTo("\"12.50\"");
        assertThat(handle(db, b -> b.json(mapper), Amount.class)).containsExactly(new Amount(1250));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void aTypeJsonbCannotConstructIsRefusedAtOpen(TestDatabase db) throws Exception {
        createTable(db);
        try (Jsonb jsonb = JsonbBuilder.create()) {
            InboxBroker broker = InboxBroker.fromUrl(db.url()).jsonb(jsonb)
                    .subscribe(Subscription.of("codec", spec(), Opaque.class, (job, d) -> Outcome.ack()));
            try {
                assertThatThrownBy(broker::connect).isInstanceOfSatisfying(InboxException.class,
                        e -> assertThat(e.kind()).isEqualTo(InboxException.Kind.DECLARATION))
                        .hasMessageContaining("queue codec").hasMessageContaining(Opaque.class.getName())
                        .hasMessageContaining("@JsonbCreator");
            } finally {
                broker.shutdown();
            }
        }
    }

    private static void createTable(TestDatabase db) {
        String ddl = switch (db) {
            case POSTGRES -> "CREATE TABLE codec_jobs (job_id BIGSERIAL PRIMARY KEY, locked_until TIMESTAMPTZ,"
                    + " body TEXT NOT NULL)";
            case MARIADB, CONNECTOR_J, MYSQL -> "CREATE TABLE codec_jobs (job_id BIGINT AUTO_INCREMENT PRIMARY KEY,"
                    + " locked_until DATETIME NULL, body TEXT NOT NULL)";
            case SQLITE -> "CREATE TABLE codec_jobs (job_id INTEGER PRIMARY KEY, locked_until TEXT, body TEXT NOT NULL)";
        };
        db.execute("DROP TABLE IF EXISTS " + TABLE, ddl);
    }

    private static InboxSpec spec() {
        return InboxSpec.table(TABLE, Column.of("job_id").generated()).lease(Column.of("locked_until"))
                .payload(Column.of("body"));
    }

    /** Publishes through a broker that does not consume, and returns the row's JSON as stored. */
    private static <T> String publish(TestDatabase db, UnaryOperator<InboxBroker> codec, Class<T> type, T payload) {
        InboxBroker broker = codec.apply(InboxBroker.fromUrl(db.url())).route("codec", spec()).connect();
        try {
            broker.publisher("codec", type).publish(payload);
        } finally {
            broker.shutdown();
        }
        return db.text("SELECT body FROM " + TABLE);
    }

    private static <T> List<T> handle(TestDatabase db, UnaryOperator<InboxBroker> codec, Class<T> type) {
        List<T> seen = new CopyOnWriteArrayList<>();
        InboxBroker broker = codec.apply(InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(100)))
                .subscribe(Subscription.of("codec", spec(), type, (job, d) -> {
                    seen.add(job);
                    return Outcome.ack();
                }))
                .connect();
        try {
            Eventually.await(() -> db.count(TABLE) == 0, Duration.ofSeconds(10), () -> "the row handled");
        } finally {
            broker.shutdown();
        }
        return seen;
    }
}
