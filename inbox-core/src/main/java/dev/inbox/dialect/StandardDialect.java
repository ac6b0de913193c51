package dev.inbox.dialect;

import dev.inbox.ClaimForm;
import dev.inbox.Column;
import dev.inbox.Identifiers;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.QueueClock;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.AdvisoryStatements;
import dev.inbox.spi.CancelStatements;
import dev.inbox.spi.LeaseStatements;
import dev.inbox.spi.RowLockStatements;
import dev.inbox.spi.TableShape;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.StringJoiner;

/**
 * The statements the built-in databases write alike; each database's class adds the claim and
 * whatever differs. Every statement is built once per table, when a subscription opens.
 */
public abstract class StandardDialect implements Dialect {
    private final char quote;

    protected StandardDialect(char quote) {
        this.quote = quote;
    }

    @Override
    public String quote(String identifier) {
        StringJoiner quoted = new StringJoiner(".");
        for (String part : identifier.split("\\.", -1)) {
            Identifiers.check(part, "table or column");
            int longest = capabilities().maxIdentifierLength();
            if (part.length() > longest) {
                throw new InboxException(InboxException.Kind.DECLARATION, "the name '" + part + "' has "
                        + part.length() + " characters; " + name() + " takes at most " + longest
                        + ": shorten it");
            }
            quoted.add(quote + part + quote);
        }
        return quoted.toString();
    }

    /**
     * The rows that may be claimed at {@code :now}, whatever form holds them: not processed, due
     * after any delay, and the first unfinished row of their FIFO group. A group's first row that
     * is in work or waiting out a delay keeps the rest of its group back.
     */
    protected String due(TableShape t) {
        InboxSpec spec = t.spec();
        List<String> conditions = new ArrayList<>();
        t.name(spec.retryAfter()).ifPresent(r -> conditions.add("(" + r + " IS NULL OR " + r + " <= " + now(t) + ")"));
        Optional<String> processed = t.name(spec.processedAt());
        processed.ifPresent(p -> conditions.add(p + " IS NULL"));
        t.name(spec.group()).ifPresent(g -> conditions.add("(" + g + " IS NULL OR " + t.id() + " IN (SELECT MIN("
                + t.id() + ") FROM " + t.table() + " WHERE " + g + " IS NOT NULL"
                + processed.map(p -> " AND " + p + " IS NULL").orElse("") + " GROUP BY " + g + "))"));
        return conditions.isEmpty() ? "1 = 1" : String.join(" AND ", conditions);
    }

    /**
     * Now, as the table's clock reads it: the host's, bound as {@code :now}, or on the database's
     * clock ({@link QueueClock#DATABASE}) the database's own, read by the statement.
     */
    protected String now(TableShape t) {
        return onDatabaseClock(t) ? databaseNow() : ":now";
    }

    /** A settlement's or a publish's time stamp ({@code :name}, bound from the host), as the table's clock reads it. */
    protected String stamp(TableShape t, String name) {
        return onDatabaseClock(t) ? databaseNow() : ":" + name;
    }

    /**
     * When a row retried or published with a delay is due, as the table's clock reads it: the
     * host's {@code :due}, or the database's now plus {@code :delay} milliseconds; NULL without a delay.
     */
    protected String delayedUntil(TableShape t) {
        return onDatabaseClock(t) ? databaseDeadline(":delay") : ":due";
    }

    /** The database's clock, where {@link Capabilities#readsDatabaseClock()}. */
    protected String databaseNow() {
        throw new UnsupportedOperationException(name() + " does not read the database's clock");
    }

    /** The database's now plus {@code milliseconds} (a parameter that may be NULL, giving NULL). */
    protected String databaseDeadline(String milliseconds) {
        throw new UnsupportedOperationException(name() + " does not read the database's clock");
    }

    private static boolean onDatabaseClock(TableShape t) {
        return t.spec().clock() == QueueClock.DATABASE;
    }

    @Override
    public String depth(TableShape t) {
        InboxSpec spec = t.spec();
        String due = spec.claimForm() == ClaimForm.LEASE ? leaseDue(t) : due(t);
        String earliest = t.name(spec.publishedAt())
                .map(c -> "MIN(CASE WHEN " + due + " THEN " + c + " END)").orElse("NULL");
        return "SELECT COUNT(*), COALESCE(SUM(CASE WHEN " + due + " THEN 1 ELSE 0 END), 0), " + earliest
                + (onDatabaseClock(t) ? ", " + databaseNow() : "") + " FROM " + t.table()
                + t.name(spec.processedAt()).map(p -> " WHERE " + p + " IS NULL").orElse("");
    }

    @Override
    public String jobState(TableShape t) {
        String due = "WHEN " + due(t) + " THEN 0";
        return t.spec().claimForm() == ClaimForm.LEASE
                ? "CASE WHEN " + t.name(t.spec().lease().orElseThrow()) + " > :now THEN 2 " + due + " ELSE 1 END"
                : "CASE " + due + " ELSE 1 END";
    }

    @Override
    public String runNow(TableShape t) {
        InboxSpec spec = t.spec();
        return t.name(spec.retryAfter()).map(r -> "UPDATE " + t.table() + " SET " + r + " = NULL WHERE " + t.id()
                + " = :id AND " + r + " > " + now(t)
                + t.name(spec.lease()).map(l -> " AND (" + l + " IS NULL OR " + l + " <= :now)").orElse("")
                + t.name(spec.processedAt()).map(p -> " AND " + p + " IS NULL").orElse("")).orElse(null);
    }

    /** The lease form's rows that no lease holds at {@code :now}, and that are due. */
    protected String leaseDue(TableShape t) {
        String lease = t.name(t.spec().lease().orElseThrow());
        return "(" + lease + " IS NULL OR " + lease + " <= :now) AND " + due(t);
    }

    /** The claim order: higher priority first, then id. */
    protected String claimOrder(TableShape t) {
        List<String> order = new ArrayList<>();
        t.name(t.spec().priority()).ifPresent(c -> order.add(c + " DESC"));
        order.add(t.id());
        return String.join(", ", order);
    }

    /** The result columns of a claim: id, attempt before the claim, payload, headers, and the priority if any. */
    protected String claimResult(TableShape t, String prefix, boolean attemptAlreadyCounted) {
        InboxSpec spec = t.spec();
        String attempt = t.name(spec.attempt())
                .map(c -> attemptAlreadyCounted ? prefix + c + " - 1" : prefix + c).orElse("0");
        String headers = t.name(spec.headers()).map(c -> prefix + c + headersAsText()).orElse("NULL");
        String priority = t.name(spec.priority()).map(c -> ", " + prefix + c).orElse("");
        return prefix + t.id() + ", " + attempt + ", " + prefix + t.name(spec.payload().orElseThrow()) + ", " + headers
                + priority;
    }

    /** What reads a JSON column as text in a result, if the driver needs it. */
    protected String headersAsText() {
        return "";
    }

    /** The claim's stamp of the lease (and the attempt, where the table counts it). */
    protected String leaseStamp(TableShape t) {
        InboxSpec spec = t.spec();
        String stamp = t.name(spec.lease().orElseThrow()) + " = :expiry";
        return stamp + t.name(spec.attempt()).map(c -> ", " + c + " = " + nextAttempt(t)).orElse("");
    }

    /**
     * The attempt column counted up by one, stopping at the largest value its type holds (at most
     * the largest int): a row that fails for ever never makes the claim overflow the column and
     * fail for the whole table.
     */
    protected String nextAttempt(TableShape t) {
        Column attempt = t.spec().attempt().orElseThrow();
        String column = t.name(attempt);
        return "CASE WHEN " + column + " < " + largestAttempt(t.typeName(attempt)) + " THEN " + column + " + 1 ELSE "
                + column + " END";
    }

    /** The largest value an integer column of {@code type} holds, as far as an attempt counts. */
    static long largestAttempt(String type) {
        if (type.startsWith("tinyint") || type.equals("int1")) {
            return Byte.MAX_VALUE;
        }
        if (type.startsWith("smallint") || type.equals("int2")) {
            return Short.MAX_VALUE;
        }
        if (type.startsWith("mediumint") || type.equals("int3")) {
            return 8_388_607;
        }
        return Integer.MAX_VALUE;
    }

    protected String owned(TableShape t) {
        return " WHERE " + t.id() + " = :id AND " + t.name(t.spec().lease().orElseThrow()) + " = :token";
    }

    @Override
    public final LeaseStatements lease(TableShape t) {
        InboxSpec spec = t.spec();
        String lease = t.name(spec.lease().orElseThrow());
        String extend = "UPDATE " + t.table() + " SET " + lease + " = :expiry" + owned(t);
        String ack = t.name(spec.processedAt())
                .map(p -> "UPDATE " + t.table() + " SET " + p + " = :processed, " + lease + " = NULL" + owned(t))
                .orElse("DELETE FROM " + t.table() + owned(t));
        // Without a retry_after column the lease column itself holds when a retried row is due.
        String retry = t.name(spec.retryAfter())
                .map(r -> "UPDATE " + t.table() + " SET " + lease + " = NULL, " + r + " = :due" + lastErrorSet(t)
                        + owned(t))
                .orElse("UPDATE " + t.table() + " SET " + lease + " = :due" + lastErrorSet(t) + owned(t));
        String drop = "DELETE FROM " + t.table() + owned(t);
        // A row claimed ahead and never worked goes back as it was: free, its attempt unspent.
        String release = "UPDATE " + t.table() + " SET " + lease + " = NULL"
                + t.name(spec.attempt()).map(c -> ", " + c + " = " + c + " - 1").orElse("") + owned(t);
        LeaseStatements one = leaseClaim(t, extend, ack, retry, drop).withRelease(release);
        String all = ackAll(t, true);
        return one.withRows(one.stamp() == null ? null : forRows(t, one.stamp()), all != null ? null
                : forRows(t, one.ack()), all, one.style() != LeaseStatements.ClaimStyle.RETURNING || all == null ? null
                : chain(one.claim(), all));
    }

    @Override
    public final RowLockStatements rowLock(TableShape t) {
        RowLockStatements one = rowLockStatements(t);
        String all = ackAll(t, false);
        String acksAndCommit = all == null ? null : withCommit(all);
        // A claim that stamps each row after its select is no one statement to send after a commit.
        return one.withRows(one.stamp() == null ? null : forRows(t, one.stamp()), all != null ? null
                : forRows(t, one.ack()), all, acksAndCommit, acksAndCommit == null || one.stamp() != null ? null
                : withCommitThen(all, one.claim()));
    }

    /** The row lock form's statements of one row each; this database's claim with {@link #rowLockSettlements}. */
    protected RowLockStatements rowLockStatements(TableShape t) {
        throw new UnsupportedOperationException(name() + " does not serve the row lock form");
    }

    @Override
    public final AdvisoryStatements advisory(TableShape t) {
        AdvisoryStatements one = advisoryStatements(t);
        String all = ackAll(t, false);
        return one.withRows(forRows(t, one.take()), one.count() == null ? null : forRows(t, one.count()),
                all != null ? null : forRows(t, one.ack()), all);
    }

    /** The advisory lock form's statements of one row each, with this database's locks ({@link #advisoryWithLocks}). */
    protected AdvisoryStatements advisoryStatements(TableShape t) {
        throw new UnsupportedOperationException(name() + " does not serve the advisory lock form");
    }

    /**
     * {@code perRow}, one of this dialect's statements that acts on the row {@code :id} (while it
     * holds {@code :token}, where it names one), as one statement for a list of rows: they come as
     * the one parameter {@code :rows} ({@link #bindRows}), the other parameters of {@code perRow}
     * once. A statement that changes rows returns how many it changed; a query (the advisory take)
     * returns those of the list it finds, as {@code perRow} returns its one. Null where the engine
     * runs {@code perRow} a row at a time (a JDBC batch where it changes rows), which costs a round
     * trip per row on a driver that neither pipelines nor rewrites a batch.
     */
    protected String forRows(TableShape t, String perRow) {
        return null;
    }

    /**
     * One statement that acks many rows, or null where acks go as {@code ackRows} or a JDBC batch
     * of the form's ack: it does what the form's ack does to each row of {@code :ids} (holding its
     * {@code :tokens} where {@code leased}), and returns the id of each row it acked.
     */
    protected String ackAll(TableShape t, boolean leased) {
        return null;
    }

    /**
     * {@code first}, committed, then {@code then} in a transaction of its own, sent to the server
     * together on an autocommit connection, results in order; null where the driver sends one
     * statement at a time.
     */
    protected String chain(String first, String then) {
        return null;
    }

    /** {@code statement} and the commit of the transaction it runs in, sent together; or null. */
    protected String withCommit(String statement) {
        return null;
    }

    /**
     * {@code statement}, the commit of the transaction it runs in, and {@code next} in a
     * transaction begun after that commit, which stays open, sent together; or null.
     */
    protected String withCommitThen(String statement, String next) {
        return null;
    }

    /**
     * {@code , last_error = ...} where the table keeps its last error ({@link #lastErrorValue}), for a
     * retry's {@code SET}; empty where it does not, which leaves the statement as it was.
     */
    protected String lastErrorSet(TableShape t) {
        return t.name(t.spec().lastError()).map(e -> ", " + lastErrorValue(e)).orElse("");
    }

    /**
     * The last error column set to {@code :lastError}, or kept where that is NULL: a release or a
     * row put off after a refused settlement binds no error and leaves the newest one in place.
     */
    private static String lastErrorValue(String column) {
        return column + " = COALESCE(:lastError, " + column + ")";
    }

    @Override
    public String deadLetter(TableShape t, String deadLetterTable, boolean leased) {
        InboxSpec spec = t.spec();
        Optional<String> headers = t.name(spec.headers());
        Optional<String> lastError = t.name(spec.lastError());
        String where = leased ? owned(t) : " WHERE " + t.id() + " = :id";
        // The dead letter keeps the last attempt's error, else the one an earlier attempt left in the row.
        return "INSERT INTO " + quote(deadLetterTable) + " (" + quote("id") + ", " + quote("payload")
                + headers.map(h -> ", " + quote("headers")).orElse("") + ", " + quote("attempt") + ", "
                + quote("error") + ", " + quote("failed_at") + lastError.map(e -> ", " + e).orElse("") + ") SELECT "
                + t.id() + ", " + t.name(spec.payload().orElseThrow()) + headers.map(h -> ", " + h).orElse("")
                + ", :attempt, :error, " + stamp(t, "failed")
                + lastError.map(e -> ", COALESCE(:lastError, " + e + ")").orElse("") + " FROM " + t.table() + where;
    }

    /** The row lock form's settlements: the claim's transaction holds the row, so no token. */
    protected RowLockStatements rowLockSettlements(TableShape t, LeaseStatements.ClaimStyle style, String claim,
            String stamp) {
        InboxSpec spec = t.spec();
        String byId = " WHERE " + t.id() + " = :id";
        String ack = t.name(spec.processedAt())
                .map(p -> "UPDATE " + t.table() + " SET " + p + " = " + stamp(t, "processed") + byId)
                .orElse("DELETE FROM " + t.table() + byId);
        // Without a retry_after column the row is due again when the claim ends; only its last error is written.
        String retry = t.name(spec.retryAfter()).map(r -> "UPDATE " + t.table() + " SET " + r + " = " + delayedUntil(t)
                + lastErrorSet(t) + byId)
                .orElse(t.name(spec.lastError()).map(e -> "UPDATE " + t.table() + " SET " + lastErrorValue(e) + byId)
                        .orElse(null));
        // After a rolled-back JTA delivery: the row again, if no other claim took or worked it since.
        String relock = "SELECT " + t.id() + " FROM " + t.table() + byId
                + t.name(spec.attempt()).map(a -> " AND " + a + " = :attempt").orElse("")
                + " FOR UPDATE SKIP LOCKED";
        String count = t.name(spec.attempt())
                .map(a -> "UPDATE " + t.table() + " SET " + a + " = " + nextAttempt(t) + byId).orElse(null);
        return new RowLockStatements(style, claim, stamp, ack, retry, "DELETE FROM " + t.table() + byId, relock,
                count);
    }

    /**
     * The advisory lock form's statements with the locking of this database (keys as
     * {@link #advisoryKeyText} writes them): {@code tryLockOf} makes the condition that locks a key
     * without waiting; it, {@code unlock} and {@code unlockAll} are null where the process keeps the locks.
     */
    protected AdvisoryStatements advisoryWithLocks(TableShape t,
            java.util.function.UnaryOperator<String> tryLockOf, String unlock, String unlockAll) {
        InboxSpec spec = t.spec();
        String key = advisoryKey(t);
        String candidates = "SELECT " + t.id() + ", " + key + " FROM " + t.table() + " WHERE " + due(t) + " ORDER BY "
                + claimOrder(t) + " LIMIT :limit";
        // The lock is tried in the outer query, row by row in claim order, until :limit rows are locked.
        String lockCandidates = tryLockOf == null ? null : "SELECT c.id, c.k FROM (SELECT " + t.id() + " AS id, " + key
                + " AS k FROM " + t.table() + " WHERE " + due(t) + " ORDER BY " + claimOrder(t) + " LIMIT :scan) c"
                + " WHERE " + tryLockOf.apply("c.k") + " LIMIT :limit";
        String take = "SELECT " + claimResult(t, "", false) + " FROM " + t.table() + " WHERE " + t.id() + " = :id AND "
                + due(t);
        String count = t.name(spec.attempt())
                .map(a -> "UPDATE " + t.table() + " SET " + a + " = " + nextAttempt(t) + " WHERE " + t.id() + " = :id")
                .orElse(null);
        RowLockStatements settlements = rowLockSettlements(t, LeaseStatements.ClaimStyle.RETURNING, take, null);
        return new AdvisoryStatements(candidates, lockCandidates, take, count, unlock, unlockAll,
                settlements.ack(),
                settlements.retry(), settlements.drop());
    }

    /** The text of an advisory lock key's column ({@code CAST(c AS TEXT)}), after the table's prefix. */
    protected String advisoryKeyText(String column) {
        return "CAST(" + column + " AS TEXT)";
    }

    /**
     * A condition that tries the session's advisory lock on {@code :prefix} followed by {@code key}
     * and is true when it took it; null where locks are kept in the process.
     */
    protected String tryAdvisoryLock(String key) {
        return null;
    }

    /** The statement that releases the session's advisory lock on {@code :key}; null where locks are kept in the process. */
    protected String advisoryUnlock() {
        return null;
    }

    /** The advisory lock key of a row, without the table's prefix: its advisory_lock value, else its id. */
    private String advisoryKey(TableShape t) {
        return "COALESCE(" + advisoryKeyText(t.name(t.spec().advisoryLock().orElseThrow())) + ", "
                + advisoryKeyText(t.id()) + ")";
    }

    @Override
    public CancelStatements cancel(TableShape t) {
        InboxSpec spec = t.spec();
        ClaimForm form = spec.claimForm();
        Optional<String> processed = t.name(spec.processedAt());
        String unprocessed = processed.map(p -> " AND " + p + " IS NULL").orElse("");
        String byId = " WHERE " + t.id() + " = :id";
        String find = "SELECT " + processed.orElse("NULL") + ", " + (form == ClaimForm.ADVISORY ? advisoryKey(t)
                : "NULL") + " FROM " + t.table() + byId;
        String delete = "DELETE FROM " + t.table() + byId;
        return switch (form) {
            case LEASE -> {
                String lease = t.name(spec.lease().orElseThrow());
                yield new CancelStatements(find, null, delete + " AND (" + lease + " IS NULL OR " + lease
                        + " <= :now)" + unprocessed, null);
            }
            case ROW_LOCK -> new CancelStatements(find, "SELECT " + t.id() + " FROM " + t.table() + byId + unprocessed
                    + " FOR UPDATE SKIP LOCKED", delete, null);
            case ADVISORY -> {
                String tryLock = tryAdvisoryLock("c.k");
                // The lock is tried on the one row the inner query found, never on another.
                yield new CancelStatements(find, tryLock == null ? null : "SELECT c.k FROM (SELECT " + advisoryKey(t)
                        + " AS k FROM " + t.table() + byId + unprocessed + " LIMIT 1) c WHERE " + tryLock, delete,
                        advisoryUnlock());
            }
        };
    }

    /** The claim statements of this database, with the settlements built above. */
    protected abstract LeaseStatements leaseClaim(TableShape t, String extend, String ack, String retry, String drop);

    @Override
    public String insert(TableShape t) {
        return insertOf(t, 1);
    }

    /** {@link #insert} with its {@code VALUES} tuple written {@code rows} times: one statement for a batch. */
    protected String multiRowInsert(TableShape t, int rows) {
        return insertOf(t, rows);
    }

    private String insertOf(TableShape t, int rows) {
        InboxSpec spec = t.spec();
        List<String> columns = new ArrayList<>();
        List<String> values = new ArrayList<>();
        if (!spec.id().isGenerated()) {
            columns.add(t.id());
            values.add(":id");
        }
        spec.attempt().filter(c -> !c.isGenerated()).ifPresent(c -> {
            columns.add(t.name(c));
            values.add("1");
        });
        Column payload = spec.payload().orElseThrow();
        columns.add(t.name(payload));
        values.add(jsonParameter(t, payload, ":payload"));
        spec.headers().ifPresent(c -> {
            columns.add(t.name(c));
            values.add(jsonParameter(t, c, ":headers"));
        });
        spec.group().ifPresent(c -> {
            columns.add(t.name(c));
            values.add(":group");
        });
        spec.priority().ifPresent(c -> {
            columns.add(t.name(c));
            values.add(":priority");
        });
        spec.publishedAt().ifPresent(c -> {
            columns.add(t.name(c));
            values.add(stamp(t, "published"));
        });
        spec.uniqueKey().ifPresent(c -> {
            columns.add(t.name(c));
            values.add(":key");
        });
        // A publish delay lives in retry_after, or in a lease table without one, in the lease column.
        spec.retryAfter().or(spec::lease).ifPresent(c -> {
            columns.add(t.name(c));
            values.add(delayedUntil(t));
        });
        String tuple = "(" + String.join(", ", values) + ")";
        return "INSERT INTO " + t.table() + " (" + String.join(", ", columns) + ") VALUES "
                + String.join(", ", java.util.Collections.nCopies(rows, tuple));
    }

    /** A parameter written into a JSON or text column; PostgreSQL casts it to json types. */
    protected String jsonParameter(TableShape t, Column column, String parameter) {
        return parameter;
    }
}
