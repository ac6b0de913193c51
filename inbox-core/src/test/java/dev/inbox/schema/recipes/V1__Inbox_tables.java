package dev.inbox.schema.recipes;

// tag::flyway[]
import dev.inbox.schema.InboxSchema;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;

/** A Flyway Java migration: Inbox's tables, written for the database Flyway migrates. */
public class V1__Inbox_tables extends BaseJavaMigration {
    @Override
    public void migrate(Context context) throws Exception {
        Connection connection = context.getConnection();
        InboxSchema schema = InboxSchema.of(connection);
        List<String> ddl = new ArrayList<>(schema.queue(MakeThumbnail.class));
        ddl.addAll(schema.deadLetter(MakeThumbnail.class, "thumbnail_dead"));
        ddl.addAll(schema.pauseTable());
        ddl.addAll(schema.scheduleTable());
        ddl.addAll(schema.subscriberTable());
        try (Statement statement = connection.createStatement()) {
            for (String sql : ddl) {
                statement.execute(sql);
            }
        }
    }
}
// end::flyway[]
