package dev.inbox.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.inbox.Column;
import dev.inbox.InboxSpec;
import dev.inbox.engine.InboxBroker;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.DeploymentException;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessBean;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.json.bind.annotation.JsonbProperty;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.function.Consumer;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

/** An application's {@code @InboxJson} producer is found among its beans in a real CDI container (Weld SE). */
class PayloadJsonTest {

    /** Observes as {@link InboxExtension} does, without the rest of its deployment (data sources, config). */
    public static final class Finder implements Extension {
        final PayloadJson payloadJson = new PayloadJson();

        void find(@Observes ProcessBean<?> event) {
            payloadJson.see(event.getBean());
        }

        void check(@Observes AfterDeploymentValidation event) {
            payloadJson.problem().ifPresent(event::addDeploymentProblem);
        }
    }

    @ApplicationScoped
    public static class JsonbProducer {
        @Produces @InboxJson @ApplicationScoped
        Jsonb payloadJson() {
            return JsonbBuilder.create();
        }
    }

    @ApplicationScoped
    public static class MapperProducer {
        static final ObjectMapper MAPPER = InboxBroker.defaultJson()
                .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

        @Produces @InboxJson
        ObjectMapper payloadJson() {
            return MAPPER;
        }
    }

    /** An unqualified mapper is the application's own business, not Inbox's. */
    @ApplicationScoped
    public static class PlainMapperProducer {
        @Produces
        ObjectMapper mapper() {
            return new ObjectMapper();
        }
    }

    /** Named one way by JSON-B, another by the application's Jackson, a third by Inbox's. */
    public record Renamed(@JsonbProperty("order_no") long orderNumber) {}

    @Test
    void aProducedJsonbWritesThePayloads() throws Exception {
        Finder finder = new Finder();
        try (WeldContainer container = weld(finder, JsonbProducer.class, PlainMapperProducer.class).initialize()) {
            // Looked up as the broker is built, so the container is still running.
            assertThat(storedWith(finder.payloadJson.codec(container.getBeanManager()))).contains("\"order_no\"");
        }
    }

    @Test
    void aProducedObjectMapperWritesThePayloads() throws Exception {
        Finder finder = new Finder();
        try (WeldContainer container = weld(finder, MapperProducer.class).initialize()) {
            assertThat(storedWith(finder.payloadJson.codec(container.getBeanManager())))
                    .contains("\"order_number\"");
        }
    }

    @Test
    void withoutAProducerThePayloadsStayOnInboxsJackson() throws Exception {
        Consumer<InboxBroker> codec = codecOf(PlainMapperProducer.class);
        assertThat(codec).isNull();
        assertThat(storedWith(codec)).contains("\"orderNumber\"");
    }

    @Test
    void bothProducedIsADeploymentError() {
        assertThatThrownBy(() -> weld(new Finder(), JsonbProducer.class, MapperProducer.class).initialize().close())
                .isInstanceOf(DeploymentException.class)
                .hasMessageContaining("2 @InboxJson mappers")
                .hasMessageContaining("ObjectMapper from " + MapperProducer.class.getName())
                .hasMessageContaining("Jsonb from " + JsonbProducer.class.getName())
                .hasMessageContaining("keep a single @Produces @InboxJson ObjectMapper or Jsonb");
    }

    /** The JSON a broker given the application's codec stores for a {@link Renamed} payload. */
    private static String storedWith(Consumer<InboxBroker> codec) throws Exception {
        Path file = Files.createTempFile("payload-json", ".db");
        String url = "jdbc:sqlite:" + file;
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE renamed_jobs (job_id INTEGER PRIMARY KEY, locked_until TEXT, body TEXT NOT NULL)");
        }
        InboxBroker broker = InboxBroker.fromUrl(url);
        if (codec != null) {
            codec.accept(broker);
        }
        broker.route("renamed", InboxSpec.table("renamed_jobs", Column.of("job_id").generated())
                .lease(Column.of("locked_until")).payload(Column.of("body"))).connect();
        try {
            broker.publisher("renamed", Renamed.class).publish(new Renamed(7));
        } finally {
            broker.shutdown();
        }
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
                ResultSet rows = s.executeQuery("SELECT body FROM renamed_jobs")) {
            assertThat(rows.next()).isTrue();
            return rows.getString(1);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static Consumer<InboxBroker> codecOf(Class<?>... beans) {
        Finder finder = new Finder();
        try (WeldContainer container = weld(finder, beans).initialize()) {
            return finder.payloadJson.codec(container.getBeanManager());
        }
    }

    private static Weld weld(Finder finder, Class<?>... beans) {
        return new Weld().disableDiscovery().addExtension(finder).addBeanClasses(beans);
    }
}
