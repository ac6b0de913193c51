package dev.inbox.internal.broker;

import dev.inbox.Column;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.internal.runner.LastErrors;
import dev.inbox.spi.ColumnRole;
import dev.inbox.spi.ColumnType;
import dev.inbox.spi.Dialect;
import java.util.Map;
import java.util.Optional;

/**
 * The types of a queue table's columns, checked at open against what the engine keeps in each: a
 * lease column that rounds its token, a time column without a time zone, a counter that is text.
 * Such a table was accepted before and worked a job over and over, or on two servers at once.
 */
final class ColumnTypes {
    private ColumnTypes() {}

    /**
     * Checks each column of {@code spec} with a role against its type in {@code types} (by column
     * name, as the driver reported it).
     *
     * @throws InboxException {@code SCHEMA} naming the first column whose type cannot serve, what is
     *                        wrong with it and the type to use
     */
    static void check(InboxSpec spec, Dialect dialect, Map<String, ColumnType> types) {
        check(spec, dialect, types, spec.lease(), ColumnRole.LEASE);
        check(spec, dialect, types, spec.retryAfter(), ColumnRole.TIME);
        check(spec, dialect, types, spec.processedAt(), ColumnRole.TIME);
        check(spec, dialect, types, spec.publishedAt(), ColumnRole.TIME);
        check(spec, dialect, types, spec.attempt(), ColumnRole.COUNTER);
        check(spec, dialect, types, spec.priority(), ColumnRole.COUNTER);
        check(spec, dialect, types, spec.lastError(), ColumnRole.TEXT);
    }

    /**
     * The characters a last error written into {@code spec}'s last error column may have: at most
     * {@link LastErrors#LONGEST}, fewer where the column is declared shorter; 0 without the column.
     *
     * @throws InboxException {@code SCHEMA} for a column shorter than {@link LastErrors#SHORTEST}
     */
    static int lastErrorLength(InboxSpec spec, Dialect dialect, Map<String, ColumnType> types) {
        if (spec.lastError().isEmpty()) {
            return 0;
        }
        String name = spec.lastError().get().name();
        ColumnType type = types.get(name);
        long capacity = type == null || !dialect.keepsDeclaredLengths() ? Long.MAX_VALUE : capacity(type);
        if (capacity < LastErrors.SHORTEST) {
            throw new InboxException(InboxException.Kind.SCHEMA, "table " + spec.table() + ": column " + name + " is "
                    + describe(type) + ", too short for an exception's class and message (" + LastErrors.SHORTEST
                    + " characters at least, " + LastErrors.LONGEST + " written at most): make it a TEXT column");
        }
        return (int) Math.min(capacity, LastErrors.LONGEST);
    }

    private static void check(InboxSpec spec, Dialect dialect, Map<String, ColumnType> types, Optional<Column> column,
            ColumnRole role) {
        if (column.isEmpty()) {
            return;
        }
        String name = column.get().name();
        ColumnType type = types.get(name);
        String problem = type == null ? null : dialect.columnProblem(role, type);
        if (problem != null) {
            throw new InboxException(InboxException.Kind.SCHEMA, "table " + spec.table() + ": column " + name + " "
                    + problem + " (change the column's type, or describe another column)");
        }
    }

    /**
     * What a column of {@code type} holds, in the driver's unit (bytes or characters); the largest
     * long where the driver reports no limit (0, -1, or the largest int: PostgreSQL's {@code bytea}
     * and {@code text}, MariaDB's {@code LONGBLOB}).
     */
    static long capacity(ColumnType type) {
        int precision = type.precision();
        return precision > 0 && precision < Integer.MAX_VALUE ? precision : Long.MAX_VALUE;
    }

    /**
     * Checks that dead-letter table {@code deadTable}'s columns ({@code dead}) hold what a row of
     * the queue table ({@code queue}) brings and the error text the engine writes. MariaDB's
     * {@code INSERT ... SELECT} cuts a {@code LONGBLOB} payload to a {@code BLOB}'s 64 KiB without a
     * warning, even in strict mode.
     *
     * @throws InboxException {@code SCHEMA} naming both tables, the column and both types
     */
    static void checkDeadLetter(InboxSpec spec, String deadTable, Map<String, ColumnType> queue,
            Map<String, ColumnType> dead, int errorLength, int lastErrorLength) {
        checkHolds(spec, deadTable, "payload", queue.get(spec.payload().orElseThrow().name()), dead.get("payload"));
        spec.headers().ifPresent(h -> checkHolds(spec, deadTable, "headers", queue.get(h.name()), dead.get("headers")));
        ColumnType error = dead.get("error");
        if (error != null && capacity(error) < errorLength) {
            throw new InboxException(InboxException.Kind.SCHEMA, "dead-letter table " + deadTable + " of table "
                    + spec.table() + ": column error is " + describe(error) + ", and a row's error text runs to "
                    + errorLength + " characters: make it a TEXT column");
        }
        spec.lastError().ifPresent(column -> {
            ColumnType kept = dead.get(column.name());
            if (kept != null && capacity(kept) < lastErrorLength) {
                throw new InboxException(InboxException.Kind.SCHEMA, "dead-letter table " + deadTable + " of table "
                        + spec.table() + ": column " + column.name() + " is " + describe(kept) + ", and the queue's"
                        + " last error runs to " + lastErrorLength + " characters: make it a TEXT column");
            }
        });
    }

    /**
     * Checks the type of dead-letter table {@code deadTable}'s last error column, as the queue's is.
     *
     * @throws InboxException {@code SCHEMA} naming both tables, the column and the type to use
     */
    static void checkDeadLastError(InboxSpec spec, String deadTable, Dialect dialect, Map<String, ColumnType> dead) {
        spec.lastError().ifPresent(column -> {
            ColumnType type = dead.get(column.name());
            String problem = type == null ? null : dialect.columnProblem(ColumnRole.TEXT, type);
            if (problem != null) {
                throw new InboxException(InboxException.Kind.SCHEMA, "dead-letter table " + deadTable + " of table "
                        + spec.table() + ": column " + column.name() + " " + problem);
            }
        });
    }

    private static void checkHolds(InboxSpec spec, String deadTable, String column, ColumnType from, ColumnType to) {
        if (from != null && to != null && capacity(to) < capacity(from)) {
            throw new InboxException(InboxException.Kind.SCHEMA, "dead-letter table " + deadTable + " of table "
                    + spec.table() + ": column " + column + " is " + describe(to) + ", narrower than the queue's "
                    + describe(from) + ", so a moved row could lose the end of its " + column + ": give it the"
                    + " queue column's type");
        }
    }

    private static String describe(ColumnType type) {
        long capacity = capacity(type);
        return type.name() + (capacity == Long.MAX_VALUE ? "" : " (" + capacity + ")");
    }
}
