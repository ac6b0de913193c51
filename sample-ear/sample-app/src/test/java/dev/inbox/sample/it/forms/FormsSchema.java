package dev.inbox.sample.it.forms;

import jakarta.annotation.Priority;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** Creates the forms application's tables before Inbox opens its handlers, outside any transaction. */
@ApplicationScoped
public class FormsSchema {

    @Resource(lookup = "jdbc/inbox")
    DataSource dataSource;

    void create(@Observes @Priority(Interceptor.Priority.LIBRARY_BEFORE) @Initialized(ApplicationScoped.class)
            Object started) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement s = connection.createStatement()) {
            String product = connection.getMetaData().getDatabaseProductName();
            String id = switch (product) {
                case "PostgreSQL" -> "BIGSERIAL PRIMARY KEY";
                case "MariaDB", "MySQL" -> "BIGINT AUTO_INCREMENT PRIMARY KEY";
                default -> "INTEGER PRIMARY KEY";
            };
            String time = switch (product) {
                case "PostgreSQL" -> "TIMESTAMPTZ";
                case "MariaDB", "MySQL" -> "DATETIME NULL";
                default -> "TEXT";
            };
            String blob = product.equals("PostgreSQL") ? "BYTEA" : "BLOB";
            String common = "id " + id + ", attempt SMALLINT NOT NULL DEFAULT 1, payload " + blob + " NOT NULL";
            s.execute("CREATE TABLE IF NOT EXISTS it_lease_jobs (" + common + ", locked_until " + time + ")");
            s.execute("CREATE TABLE IF NOT EXISTS it_rowlock_jobs (" + common + ", retry_after " + time + ")");
            s.execute("CREATE TABLE IF NOT EXISTS it_advisory_jobs (" + common + ", lock_key VARCHAR(100),"
                    + " retry_after " + time + ")");
            s.execute("CREATE TABLE IF NOT EXISTS it_effects (form VARCHAR(20) NOT NULL, job BIGINT NOT NULL,"
                    + " attempt INTEGER NOT NULL)");
        }
    }
}
