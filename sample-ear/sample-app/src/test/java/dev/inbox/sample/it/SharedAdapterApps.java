package dev.inbox.sample.it;

import dev.inbox.sample.it.forms.FormsApplication;
import dev.inbox.sample.it.forms.Ping;
import dev.inbox.sample.it.shared.Note;
import dev.inbox.sample.it.shared.NoteJob;
import dev.inbox.sample.it.shared.Notes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.jboss.shrinkwrap.api.Filters;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.EmptyAsset;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * The standalone layout beside the sample's EAR: the Inbox RAR deployed once on the server
 * ({@code <resourceAdapter id="inboxShared">}, its administered object at {@code inbox/shared}),
 * serving two plain WARs ({@link #APPS}) that carry only the CDI extension and their handlers, each
 * with a data source of its own (a SQLite file in the server's output directory).
 */
final class SharedAdapterApps {
    static final List<String> APPS = List.of("notes-a", "notes-b");
    private static final String CONFIG = "shared-adapter.xml";

    private final Path serverDir;

    SharedAdapterApps(Path serverDir) {
        this.serverDir = serverDir;
    }

    /** The database file of {@code app}. */
    Path database(String app) {
        return serverDir.resolve(app + ".db");
    }

    /** Writes the RAR, the WARs, their tables and the configuration that deploys them; the server must start after. */
    void deploy() throws IOException, SQLException {
        Path sample = Path.of(System.getProperty("inbox.test.sample.ear.dir"));
        Files.createDirectories(serverDir.resolve("apps"));
        Files.copy(sample.resolve("inbox.rar"), serverDir.resolve("apps/inbox-shared.rar"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        WebArchive sampleWar = ShrinkWrap.createFromZipFile(WebArchive.class, sample.resolve("sample-web.war").toFile());
        StringBuilder config = new StringBuilder("""
                <server>
                    <resourceAdapter id="inboxShared" location="inbox-shared.rar" autoStart="true"/>
                    <adminObject id="sharedAdapter" jndiName="inbox/shared">
                        <properties.inboxShared/>
                    </adminObject>
                """);
        for (String app : APPS) {
            WebArchive war = ShrinkWrap.create(WebArchive.class, app + ".war")
                    .addClasses(Note.class, NoteJob.class, Notes.class, FormsApplication.class, Ping.class)
                    .addAsWebInfResource(EmptyAsset.INSTANCE, "beans.xml")
                    .addAsResource(new StringAsset("inbox.adapter=inbox/shared\ninbox.datasource=jdbc/" + app
                            + "\ninbox.poll-interval=200ms\n"), "META-INF/microprofile-config.properties");
            // The CDI extension only: the adapter's classes come from the standalone RAR (classProviderRef).
            sampleWar.getContent(Filters.include("/WEB-INF/lib/inbox-cdi.*\\.jar")).forEach((path, node) ->
                    war.add(node.getAsset(), path));
            war.as(ZipExporter.class).exportTo(serverDir.resolve("apps/" + app + ".war").toFile(), true);
            createTables(app);
            config.append("""
                        <dataSource id="%1$s" jndiName="jdbc/%1$s" type="javax.sql.DataSource">
                            <jdbcDriver javax.sql.DataSource="org.sqlite.SQLiteDataSource">
                                <library><file name="${server.config.dir}/jdbc/sqlite-jdbc.jar"/></library>
                            </jdbcDriver>
                            <properties url="jdbc:sqlite:${server.output.dir}/%1$s.db" busyTimeout="10000"/>
                        </dataSource>
                        <webApplication id="%1$s" name="%1$s" location="%1$s.war" contextRoot="/%1$s">
                            <classloader classProviderRef="inboxShared"/>
                        </webApplication>
                    """.formatted(app));
        }
        config.append("</server>\n");
        Path overrides = serverDir.resolve("configDropins/overrides");
        Files.createDirectories(overrides);
        Files.writeString(overrides.resolve(CONFIG), config, StandardCharsets.UTF_8);
    }

    private void createTables(String app) throws IOException, SQLException {
        Files.deleteIfExists(database(app));
        try (Connection c = connect(app); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE note_jobs (id INTEGER PRIMARY KEY, attempt SMALLINT NOT NULL DEFAULT 1,"
                    + " payload BLOB NOT NULL, locked_until TEXT)");
            s.execute("CREATE TABLE note_effects (job BIGINT NOT NULL)");
        }
    }

    Connection connect(String app) throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + database(app));
    }

    /** Removes the applications, the RAR and their configuration, so the server runs the sample alone again. */
    void undeploy() throws IOException {
        Files.deleteIfExists(serverDir.resolve("configDropins/overrides/" + CONFIG));
        Files.deleteIfExists(serverDir.resolve("apps/inbox-shared.rar"));
        for (String app : APPS) {
            Files.deleteIfExists(serverDir.resolve("apps/" + app + ".war"));
        }
    }
}
