package dev.inbox.docs;

import com.example.thumbnails.MakeThumbnail;
import dev.inbox.schema.InboxSchema;
import java.util.List;

/** The DDL InboxSchema writes for the getting started's table, per database: the docs show it as written. */
final class SchemaExamples {
    private static final List<String> DATABASES = List.of("postgresql", "mariadb", "sqlite");

    private SchemaExamples() {}

    static String asciidoc() {
        StringBuilder doc = new StringBuilder();
        for (String database : DATABASES) {
            InboxSchema schema = InboxSchema.of(database);
            doc.append("[source,sql,subs=\"verbatim\",title=\"").append(database).append("\"]\n----\n")
                    .append(InboxSchema.script(schema.queue(MakeThumbnail.class)))
                    .append(InboxSchema.script(schema.deadLetter(MakeThumbnail.class, "thumbnail_dead")))
                    .append(InboxSchema.script(schema.pauseTable()))
                    .append(InboxSchema.script(schema.scheduleTable()))
                    .append(InboxSchema.script(schema.subscriberTable()))
                    .append("----\n\n");
        }
        return doc.toString();
    }
}
