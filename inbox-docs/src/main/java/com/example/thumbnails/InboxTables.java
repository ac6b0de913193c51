package com.example.thumbnails;

// tag::tables[]
import dev.inbox.schema.InboxSchema;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;
import java.sql.Connection;
import java.sql.Statement;
import javax.naming.InitialContext;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Creates the queue table and the subscriber table when the application starts, before Inbox
 * opens its handlers.
 */
@ApplicationScoped
public class InboxTables {
    @Inject
    @ConfigProperty(name = "inbox.datasource", defaultValue = "jdbc/inbox")
    String dataSource;

    void create(@Observes @Priority(Interceptor.Priority.LIBRARY_BEFORE) @Initialized(ApplicationScoped.class)
            Object started) throws Exception {
        DataSource jobs = InitialContext.doLookup(dataSource);
        try (Connection connection = jobs.getConnection(); Statement statement = connection.createStatement()) {
            InboxSchema schema = InboxSchema.of(connection).ifNotExists();
            for (String sql : schema.queue(MakeThumbnail.class)) {
                statement.execute(sql);
            }
            for (String sql : schema.subscriberTable()) { // refuses a server reading the table another way
                statement.execute(sql);
            }
        }
    }
}
// end::tables[]
