package dev.inbox.sample.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Both layouts on one Open Liberty: the sample with the RAR in its EAR, and a standalone RAR
 * serving two more applications ({@link SharedAdapterApps}), each with a data source of its own.
 * Every application reaches its adapter through the administered object the server binds, not a
 * static field, and each handles its own jobs in its own database.
 */
class SharedAdapterOnLibertyIT {
    private static final int NOTES = 40;

    private final LibertyServer server = new LibertyServer();
    private final SharedAdapterApps apps = new SharedAdapterApps(server.outputDir());

    @AfterEach
    void stop() throws Exception {
        try {
            server.stop();
        } finally {
            apps.undeploy();
        }
    }

    @Test
    void aStandaloneAdapterServesTwoApplicationsBesideTheSamplesOwn() throws Exception {
        ItDatabase sample = new ItDatabase("sqlite", server.outputDir());
        sample.drop(List.of("thumbnail_jobs", "thumbnails_rendered"));
        apps.deploy();
        server.configure("sqlite", List.of());
        server.start();
        for (String app : SharedAdapterApps.APPS) {
            server.api().awaitAnswer("http://127.0.0.1:9080/" + app + "/api/ping");
        }

        long from = 1;
        for (String app : SharedAdapterApps.APPS) {
            assertThat(server.api().postTo("http://127.0.0.1:9080/" + app + "/api/notes?from=" + from + "&count=" + NOTES))
                    .isEqualTo(202);
            from += NOTES;
        }
        assertThat(server.api().post("/thumbnails", "{\"path\": \"shared.png\"}").statusCode()).isEqualTo(202);

        from = 1;
        for (String app : SharedAdapterApps.APPS) {
            long first = from;
            ItDatabase.await(() -> count(app, "note_effects") == NOTES, Duration.ofSeconds(60),
                    app + ": its notes handled");
            assertThat(count(app, "note_jobs")).as(app + ": its queue empty").isZero();
            assertThat(count(app, "note_effects WHERE job >= " + first + " AND job < " + (first + NOTES)))
                    .as(app + ": one effect per note of its own, in its own database").isEqualTo(NOTES);
            from += NOTES;
        }
        ItDatabase.await(() -> server.api().body("/thumbnails").contains("shared.png"), Duration.ofSeconds(60),
                "the sample's thumbnail rendered by the adapter in its EAR");
        assertThat(server.messages()).contains("Inbox: application notes-a opened 1 handler(s) on data source"
                + " jdbc/notes-a", "Inbox: application notes-b opened 1 handler(s) on data source jdbc/notes-b");
    }

    private long count(String app, String rows) {
        try (Connection c = apps.connect(app); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + rows)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
