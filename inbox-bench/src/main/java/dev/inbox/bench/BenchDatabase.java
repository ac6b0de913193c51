package dev.inbox.bench;

import dev.inbox.ClaimForm;
import dev.inbox.Column;
import dev.inbox.InboxSpec;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/** A database the benchmark runs on, and its queue table for one claim form. */
record BenchDatabase(String name, String url) {
    static final String TABLE = "bench_jobs";

    Connection connect() throws SQLException {
        Connection c = DriverManager.getConnection(url);
        if (name.equals("sqlite")) {
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA busy_timeout = 10000");
            }
        }
        return c;
    }

    boolean serves(ClaimForm form) {
        return !(name.equals("sqlite") && form == ClaimForm.ROW_LOCK) && form != ClaimForm.ADVISORY;
    }

    InboxSpec spec(ClaimForm form) {
        InboxSpec spec = InboxSpec.table(TABLE, Column.of("id").generated()).attempt(Column.of("attempt").generated())
                .payload(Column.of("payload"));
        return form == ClaimForm.LEASE ? spec.lease(Column.of("locked_until")) : spec;
    }

    /** Drops and creates the table, then fills it with {@code jobs} rows. */
    void fill(ClaimForm form, int jobs) throws SQLException {
        String id = switch (name) {
            case "postgres" -> "BIGSERIAL PRIMARY KEY";
            case "mariadb" -> "BIGINT AUTO_INCREMENT PRIMARY KEY";
            default -> "INTEGER PRIMARY KEY";
        };
        String time = switch (name) {
            case "postgres" -> "TIMESTAMPTZ";
            case "mariadb" -> "DATETIME NULL";
            default -> "TEXT";
        };
        try (Connection c = connect(); Statement s = c.createStatement()) {
            if (name.equals("sqlite")) {
                s.execute("PRAGMA journal_mode = WAL");
            }
            s.execute("DROP TABLE IF EXISTS " + TABLE);
            s.execute("CREATE TABLE " + TABLE + " (id " + id + ", attempt SMALLINT NOT NULL DEFAULT 1"
                    + (form == ClaimForm.LEASE ? ", locked_until " + time : "") + ", payload "
                    + (name.equals("postgres") ? "BYTEA" : "BLOB") + " NOT NULL)");
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (payload) VALUES (?)")) {
                for (int i = 0; i < jobs; i++) {
                    ps.setBytes(1, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
                    ps.addBatch();
                    if (i % 1000 == 999) {
                        ps.executeBatch();
                    }
                }
                ps.executeBatch();
            }
            c.commit();
        }
    }
}
