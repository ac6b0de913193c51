package dev.inbox.docs;

import dev.inbox.SubscriptionOption;
import dev.inbox.cdi.ConfigReference;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the pages' generated parts (AsciiDoc) into a folder: the configuration reference's tables
 * from the declarations (every option of {@link SubscriptionOption} with its {@code @Inbound}
 * attribute, MicroProfile Config keys, default and adapter property; the CDI extension's other
 * keys, {@link ConfigReference}) and the DDL {@link SchemaExamples} shows.
 */
public final class ConfigurationReference {
    private ConfigurationReference() {}

    public static void main(String[] args) throws IOException {
        Path folder = Path.of(args[0]);
        Files.createDirectories(folder);
        Files.writeString(folder.resolve("configuration-reference.adoc"), asciidoc(), StandardCharsets.UTF_8);
        Files.writeString(folder.resolve("schema-examples.adoc"), SchemaExamples.asciidoc(), StandardCharsets.UTF_8);
    }

    /** Both tables, each under its own section anchor. */
    static String asciidoc() {
        StringBuilder doc = new StringBuilder();
        doc.append("[[subscription-options]]\n== Subscription options\n\n");
        doc.append("Set on `Subscription.of(..)` (`.workers(4)`), as an `@Inbound` attribute, or by MicroProfile Config:"
                + " `inbox.queue.<queue>.<option>` for one queue, `inbox.<option>` for every queue. Durations are"
                + " ISO-8601 (`PT30S`) or `500ms`, `30s`, `5m`, `2h`, `1d`.\n\n");
        doc.append("[cols=\"2,2,3,2,2,6\",options=\"header\"]\n|===\n");
        doc.append("| option | `@Inbound` | MicroProfile Config | default | adapter property | meaning\n");
        for (SubscriptionOption<?> option : SubscriptionOption.all()) {
            doc.append("\n| [[option-").append(option.name()).append("]]`").append(option.name()).append('`')
                    .append("\n| `").append(option.attribute()).append('`')
                    .append("\n| `").append(option.queueKey("<queue>")).append("`, `").append(option.globalKey()).append('`')
                    .append("\n| ").append(cell(option.defaultText()))
                    .append("\n| ").append(option.brokerWide() ? "`" + option.adapterProperty() + "`" : "")
                    .append("\n| ").append(cell(option.description())).append('\n');
        }
        doc.append("|===\n\n");
        doc.append("[[microprofile-config-keys]]\n== Other MicroProfile Config keys\n\n");
        doc.append("Read once, when the application deploys. `<name>` stands for a recurring job's name.\n\n");
        doc.append("[cols=\"3,3,6\",options=\"header\"]\n|===\n| key | default | meaning\n");
        for (ConfigReference.Key key : ConfigReference.keys()) {
            doc.append("\n| `").append(key.key()).append('`')
                    .append("\n| ").append(cell(key.defaultValue()))
                    .append("\n| ").append(cell(key.description())).append('\n');
        }
        doc.append("|===\n");
        return doc.toString();
    }

    /** Table cells may not hold an unescaped cell separator. */
    private static String cell(String text) {
        return text.replace("|", "\\|");
    }
}
