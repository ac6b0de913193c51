package dev.inbox.sample.it;

import dev.inbox.sample.it.forms.AdvisoryEntry;
import dev.inbox.sample.it.forms.AdvisoryQueue;
import dev.inbox.sample.it.forms.Effects;
import dev.inbox.sample.it.forms.Entry;
import dev.inbox.sample.it.forms.FormsApplication;
import dev.inbox.sample.it.forms.Jobs;
import dev.inbox.sample.it.forms.LeaseEntry;
import dev.inbox.sample.it.forms.LeaseQueue;
import dev.inbox.sample.it.forms.LedgerBean;
import dev.inbox.sample.it.forms.MdbEntry;
import dev.inbox.sample.it.forms.Ping;
import dev.inbox.sample.it.forms.RowLockEntry;
import dev.inbox.sample.it.forms.RowLockQueue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jboss.shrinkwrap.api.Filters;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.EmptyAsset;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.exporter.ZipExporter;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * The forms application ({@code dev.inbox.sample.it.forms}) as an EAR of its own beside the sample
 * on the test server: the sample EAR's resource adapter, and a WAR with the CDI extension and a transactional
 * handler per claim form (the row lock one only where the database serves that form) and a
 * transacted message-driven bean on the adapter's inbound contract.
 */
final class FormsArchive {
    private static final String NAME = "forms-it";

    private final Path serverDir;

    FormsArchive(Path serverDir) {
        this.serverDir = serverDir;
    }

    /** Writes the EAR into the server's apps and the configuration that deploys it; the server must start after. */
    void deploy(boolean rowLock) throws IOException {
        Path sample = Path.of(System.getProperty("inbox.test.sample.ear.dir"));
        WebArchive war = ShrinkWrap.create(WebArchive.class, NAME + ".war")
                .addClasses(Entry.class, Effects.class, FormsApplication.class, Ping.class,
                        Jobs.class, LeaseEntry.class, LeaseQueue.class, AdvisoryEntry.class, AdvisoryQueue.class,
                        MdbEntry.class, LedgerBean.class)
                .addAsWebInfResource(EmptyAsset.INSTANCE, "beans.xml")
                // Its own adapter, the RAR in its EAR, bound below beside the sample's.
                .addAsResource(new StringAsset("inbox.adapter=inbox/" + NAME + "\n"),
                        "META-INF/microprofile-config.properties");
        if (rowLock) {
            war.addClasses(RowLockEntry.class, RowLockQueue.class);
        }
        // The CDI extension, in the web module as in the sample; the adapter's classes come with the RAR.
        WebArchive sampleWar = ShrinkWrap.createFromZipFile(WebArchive.class, sample.resolve("sample-web.war").toFile());
        sampleWar.getContent(Filters.include("/WEB-INF/lib/.*\\.jar")).forEach((path, node) ->
                war.add(node.getAsset(), path));
        EnterpriseArchive ear = ShrinkWrap.create(EnterpriseArchive.class, NAME + ".ear")
                .addAsModule(war)
                .addAsModule(sample.resolve("inbox.rar").toFile())
                .setApplicationXML(new StringAsset("""
                        <?xml version="1.0" encoding="UTF-8"?>
                        <application xmlns="https://jakarta.ee/xml/ns/jakartaee" version="10">
                          <display-name>forms-it</display-name>
                          <module><web><web-uri>forms-it.war</web-uri><context-root>/forms-it</context-root></web></module>
                          <module><connector>inbox.rar</connector></module>
                        </application>
                        """));
        Files.createDirectories(serverDir.resolve("apps"));
        ear.as(ZipExporter.class).exportTo(serverDir.resolve("apps/" + NAME + ".ear").toFile(), true);
        Path overrides = serverDir.resolve("configDropins/overrides");
        Files.createDirectories(overrides);
        // The message-driven bean's activation spec: application/module/bean, its properties from the bean.
        Files.writeString(overrides.resolve(NAME + ".xml"), """
                <server>
                    <featureManager>
                        <feature>mdb-4.0</feature>
                    </featureManager>
                    <application id="forms-it" name="forms-it" type="ear" location="forms-it.ear"/>
                    <activationSpec id="forms-it/forms-it/LedgerBean">
                        <properties.forms-it.inbox/>
                    </activationSpec>
                    <adminObject id="formsAdapter" jndiName="inbox/forms-it">
                        <properties.forms-it.inbox/>
                    </adminObject>
                </server>
                """, StandardCharsets.UTF_8);
    }

    /** Removes the EAR and its configuration, so the server runs the sample alone again. */
    void undeploy() throws IOException {
        Files.deleteIfExists(serverDir.resolve("configDropins/overrides/" + NAME + ".xml"));
        Files.deleteIfExists(serverDir.resolve("apps/" + NAME + ".ear"));
    }
}
