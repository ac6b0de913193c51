package dev.inbox.engine;

import dev.inbox.Column;
import dev.inbox.InboxSpec;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** A queue table with the columns a test needs: its DDL on each database and its description. */
final class TestTable {
    enum Feature { ATTEMPT, LEASE, ADVISORY, RETRY_AFTER, PROCESSED_AT, PUBLISHED_AT, HEADERS, GROUP, PRIORITY, LAST_ERROR }

    private final String name;
    private final Set<Feature> features;

    private TestTable(String name, Set<Feature> features) {
        this.name = name;
        this.features = features;
    }

    static TestTable of(String name, Feature first, Feature... rest) {
        return new TestTable(name, EnumSet.of(first, rest));
    }

    /** A table of {@code form} (its lease or advisory lock column) with {@code features}. */
    static TestTable of(String name, dev.inbox.ClaimForm form, Feature... features) {
        Set<Feature> all = EnumSet.noneOf(Feature.class);
        all.addAll(java.util.List.of(features));
        switch (form) {
            case LEASE -> all.add(Feature.LEASE);
            case ADVISORY -> all.add(Feature.ADVISORY);
            case ROW_LOCK -> { }
        }
        return new TestTable(name, all);
    }

    String name() {
        return name;
    }

    InboxSpec spec() {
        InboxSpec spec = InboxSpec.table(name, Column.of("id").generated()).payload(Column.of("payload"));
        if (features.contains(Feature.ATTEMPT)) {
            spec = spec.attempt(Column.of("attempt").generated());
        }
        if (features.contains(Feature.LEASE)) {
            spec = spec.lease(Column.of("locked_until"));
        }
        if (features.contains(Feature.ADVISORY)) {
            spec = spec.advisoryLock(Column.of("advisory_lock"));
        }
        if (features.contains(Feature.RETRY_AFTER)) {
            spec = spec.retryAfter(Column.of("retry_after"));
        }
        if (features.contains(Feature.PROCESSED_AT)) {
            spec = spec.processedAt(Column.of("processed_at"));
        }
        if (features.contains(Feature.PUBLISHED_AT)) {
            spec = spec.publishedAt(Column.of("published_at"));
        }
        if (features.contains(Feature.HEADERS)) {
            spec = spec.headers(Column.of("headers"));
        }
        if (features.contains(Feature.GROUP)) {
            spec = spec.group(Column.of("group"));
        }
        if (features.contains(Feature.PRIORITY)) {
            spec = spec.priority(Column.of("priority"));
        }
        if (features.contains(Feature.LAST_ERROR)) {
            spec = spec.lastError(Column.of("last_error"));
        }
        return spec;
    }

    /** Drops and creates the table, with its claim-order index. */
    void create(TestDatabase db) {
        List<String> columns = new ArrayList<>();
        columns.add(switch (db) {
            case POSTGRES -> "id BIGSERIAL PRIMARY KEY";
            case MARIADB, CONNECTOR_J, MYSQL -> "id BIGINT AUTO_INCREMENT PRIMARY KEY";
            case SQLITE -> "id INTEGER PRIMARY KEY AUTOINCREMENT";
        });
        String time = switch (db) {
            case POSTGRES -> "TIMESTAMPTZ";
            case MARIADB, CONNECTOR_J, MYSQL -> "DATETIME NULL";
            case SQLITE -> "TEXT";
        };
        if (features.contains(Feature.ATTEMPT)) {
            columns.add("attempt SMALLINT NOT NULL DEFAULT 1");
        }
        if (features.contains(Feature.LEASE)) {
            columns.add("locked_until " + time);
        }
        if (features.contains(Feature.ADVISORY)) {
            columns.add("advisory_lock VARCHAR(100)");
        }
        if (features.contains(Feature.RETRY_AFTER)) {
            columns.add("retry_after " + time);
        }
        if (features.contains(Feature.PROCESSED_AT)) {
            columns.add("processed_at " + time);
        }
        if (features.contains(Feature.PUBLISHED_AT)) {
            columns.add("published_at " + time);
        }
        if (features.contains(Feature.HEADERS)) {
            columns.add("headers " + json(db));
        }
        if (features.contains(Feature.GROUP)) {
            columns.add(quote(db, "group") + " VARCHAR(100)");
        }
        if (features.contains(Feature.PRIORITY)) {
            columns.add("priority INTEGER NOT NULL DEFAULT 0");
        }
        if (features.contains(Feature.LAST_ERROR)) {
            columns.add("last_error TEXT");
        }
        columns.add("payload " + (db == TestDatabase.POSTGRES ? "BYTEA" : "BLOB") + " NOT NULL");
        List<String> ddl = new ArrayList<>(List.of("DROP TABLE IF EXISTS " + name,
                "CREATE TABLE " + name + " (" + String.join(", ", columns) + ")"));
        // InboxSchema's indexes: one that reads in the claim's order (which keeps a MySQL claim to its
        // own rows), one on each group's first row.
        if (features.contains(Feature.PRIORITY)) {
            ddl.add("CREATE INDEX " + name + "_claim ON " + name + " (priority DESC, id)");
        }
        if (features.contains(Feature.GROUP)) {
            ddl.add("CREATE INDEX " + name + "_group ON " + name + " (" + quote(db, "group") + ", id)");
        }
        db.execute(ddl.toArray(String[]::new));
    }

    /** Drops and creates a dead-letter table for this queue table. */
    void createDeadLetter(TestDatabase db, String deadTable) {
        String time = switch (db) {
            case POSTGRES -> "TIMESTAMPTZ";
            case MARIADB, CONNECTOR_J, MYSQL -> "DATETIME";
            case SQLITE -> "TEXT";
        };
        db.execute("DROP TABLE IF EXISTS " + deadTable, "CREATE TABLE " + deadTable + " (id BIGINT PRIMARY KEY, payload "
                + (db == TestDatabase.POSTGRES ? "BYTEA" : "BLOB") + " NOT NULL"
                + (features.contains(Feature.HEADERS) ? ", headers " + json(db) : "")
                + ", attempt INTEGER NOT NULL, error TEXT NOT NULL, failed_at " + time + " NOT NULL"
                + (features.contains(Feature.LAST_ERROR) ? ", last_error TEXT" : "") + ")");
    }

    private static String json(TestDatabase db) {
        return switch (db) {
            case POSTGRES -> "JSONB";
            case MARIADB, CONNECTOR_J, MYSQL -> "JSON";
            case SQLITE -> "TEXT";
        };
    }

    static String quote(TestDatabase db, String name) {
        return db.mysqlFamily() ? "`" + name + "`" : "\"" + name + "\"";
    }
}
