package dev.inbox.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.ClaimForm;
import dev.inbox.Column;
import dev.inbox.InboxSpec;
import dev.inbox.spi.CancelStatements;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.TableShape;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every statement each built-in dialect writes for the reference tables below, kept in one file per
 * database under {@code src/test/resources/dev/inbox/dialect/statements/}: a reviewer reads a
 * database's SQL in one place, and a change of any statement fails here until the file is written
 * again ({@code -Dinbox.statements.write=true}) and the difference reviewed.
 */
class DialectStatementFilesTest {
    private static final Path FILES = Path.of("src", "test", "resources", "dev", "inbox", "dialect", "statements");
    private static final String DEAD = "dead_jobs";

    /** A lease table with every optional column but processed_at: acks delete. */
    private static final InboxSpec LEASE = InboxSpec.table("lease_jobs", Column.of("id").generated())
            .attempt(Column.of("attempt").generated())
            .lease(Column.of("locked_until"))
            .retryAfter(Column.of("retry_after"))
            .payload(Column.of("payload"))
            .headers(Column.of("headers"))
            .group(Column.of("group_key"))
            .priority(Column.of("priority"))
            .publishedAt(Column.of("published_at"))
            .uniqueKey(Column.of("unique_key"))
            .lastError(Column.of("last_error"));
    /** A lease table whose acks stamp processed_at. */
    private static final InboxSpec LEASE_PROCESSED = InboxSpec.table("lease_done_jobs", Column.of("id").generated())
            .lease(Column.of("locked_until"))
            .payload(Column.of("payload"))
            .processedAt(Column.of("processed_at"));
    private static final InboxSpec ROW_LOCK = InboxSpec.table("row_lock_jobs", Column.of("id").generated())
            .attempt(Column.of("attempt").generated())
            .retryAfter(Column.of("retry_after"))
            .payload(Column.of("payload"))
            .headers(Column.of("headers"))
            .group(Column.of("group_key"))
            .priority(Column.of("priority"));
    private static final InboxSpec ADVISORY = InboxSpec.table("advisory_jobs", Column.of("id").generated())
            .attempt(Column.of("attempt").generated())
            .advisoryLock(Column.of("advisory_lock"))
            .retryAfter(Column.of("retry_after"))
            .payload(Column.of("payload"))
            .headers(Column.of("headers"));

    static List<Dialect> dialects() {
        return List.of(new PostgresDialect(), new MySqlDialect(), new SqliteDialect());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dialects")
    void everyStatementIsTheOneInTheDatabasesFile(Dialect dialect) throws IOException {
        StringBuilder text = new StringBuilder("-- Every statement the " + dialect.name() + " dialect writes for the"
                + " reference tables of DialectStatementFilesTest.\n-- Written by that test, which fails on a"
                + " difference; write it again with -Dinbox.statements.write=true.\n");
        for (InboxSpec spec : List.of(LEASE, LEASE_PROCESSED, ROW_LOCK, ADVISORY)) {
            if (dialect.capabilities().forms().contains(spec.claimForm())) {
                write(text, spec.table() + " (" + spec.claimForm() + " form)", statements(dialect, spec));
            }
        }
        Path file = FILES.resolve(dialect.name() + ".sql");
        String written = text.toString();
        if (Boolean.getBoolean("inbox.statements.write")) {
            Files.createDirectories(FILES);
            Files.writeString(file, written, StandardCharsets.UTF_8);
        }
        assertThat(Files.exists(file)).as("%s: write it with -Dinbox.statements.write=true", file).isTrue();
        assertThat(written).as("the statements of %s differ from %s: review the difference, then write the file"
                + " again with -Dinbox.statements.write=true", dialect.name(), file)
                .isEqualTo(Files.readString(file, StandardCharsets.UTF_8));
    }

    private static void write(StringBuilder text, String table, Map<String, String> statements) {
        text.append("\n-- ").append("=".repeat(20)).append(' ').append(table).append('\n');
        statements.forEach((name, sql) -> {
            if (sql != null) {
                text.append("\n-- ").append(name).append('\n').append(sql).append(";\n");
            }
        });
    }

    /** The statements of {@code spec}'s table as the engine runs them, by name. */
    private static Map<String, String> statements(Dialect dialect, InboxSpec spec) {
        TableShape t = new TableShape(spec, dialect::quote, types(dialect));
        Map<String, String> all = new LinkedHashMap<>();
        all.put("insert", dialect.insert(t));
        if (spec.uniqueKey().isPresent()) {
            all.put("unique insert", dialect.insertUnique(t));
        }
        all.put("insert of 3 rows", dialect.insertRows(t, 3));
        all.put("depth", dialect.depth(t));
        all.put("dead letter", dialect.deadLetter(t, DEAD, spec.claimForm() == ClaimForm.LEASE));
        all.put("dead letters counted", dialect.countRows(DEAD));
        CancelStatements cancel = dialect.cancel(t);
        all.put("cancel find", cancel.find());
        all.put("cancel lock", cancel.lock());
        all.put("cancel delete", cancel.delete());
        all.put("cancel unlock", cancel.unlock());
        all.put("write lock", dialect.takeWriteLock(t));
        if (dialect.capabilities().notifications()) {
            all.put("notify", dialect.notifyStatement());
            all.put("listen", dialect.listen(dialect.listenChannel(spec.table())));
            all.put("unlisten", dialect.unlistenAll());
        }
        all.putAll(formStatements(dialect, t));
        return all;
    }

    /** A claim form's statements, each whole as the engine runs it. */
    private static Map<String, String> formStatements(Dialect dialect, TableShape t) {
        return switch (t.spec().claimForm()) {
            case LEASE -> dialect.lease(t).all();
            case ROW_LOCK -> dialect.rowLock(t).all();
            case ADVISORY -> dialect.advisory(t).all();
        };
    }

    /** The column types each database reports for the reference tables. */
    private static Map<String, String> types(Dialect dialect) {
        return switch (dialect.name()) {
            case "postgresql" -> Map.of("id", "int8", "attempt", "int4", "payload", "bytea", "headers", "jsonb");
            case "mysql" -> Map.of("id", "BIGINT", "attempt", "INT", "payload", "LONGBLOB", "headers", "JSON");
            default -> Map.of("id", "INTEGER", "attempt", "INTEGER", "payload", "BLOB", "headers", "TEXT");
        };
    }
}
