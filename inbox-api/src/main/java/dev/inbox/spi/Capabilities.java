package dev.inbox.spi;

import dev.inbox.ClaimForm;
import java.sql.Connection;
import java.util.Set;

/**
 * What a database can do, as the engine reads it once when it connects: the facts that decide how
 * it claims, commits and wakes. Everything else a dialect gives is statements or I/O.
 *
 * @param forms               the claim forms the dialect serves
 * @param maxIdentifierLength the longest table or column name the database takes
 * @param batchCommitsOnce    true when the driver runs a statement batch in autocommit as one implicit
 *                            transaction that commits once (PostgreSQL's extended protocol commits at
 *                            each Sync): a batch of independent statements, such as acks, then needs no
 *                            transaction of its own, and saves the commit's round trip
 * @param writeLocksDatabase  true when an open write transaction locks the whole database (SQLite):
 *                            while a transactional delivery holds it no other connection can write, so
 *                            its lease needs no extension and a publish outside it would wait for ever
 * @param readsDatabaseClock  true when the statements can judge a table's times by the database's own
 *                            clock ({@link dev.inbox.QueueClock#DATABASE}); elsewhere such a table is refused
 * @param notifications       true when the database wakes subscriptions of other processes (PostgreSQL
 *                            LISTEN/NOTIFY): the engine listens on one connection, publishers notify
 * @param poolIsolation       the isolation level ({@link Connection} constant) a pool the broker builds
 *                            gives its connections, where claims run at another than the driver's
 *                            default; -1 for the driver's default
 */
public record Capabilities(Set<ClaimForm> forms, int maxIdentifierLength, boolean batchCommitsOnce,
        boolean writeLocksDatabase, boolean readsDatabaseClock, boolean notifications, int poolIsolation) {

    public Capabilities {
        forms = Set.copyOf(forms);
    }

    /** A database that serves {@code forms} and names up to {@code maxIdentifierLength} long, and nothing more. */
    public static Capabilities of(Set<ClaimForm> forms, int maxIdentifierLength) {
        return new Capabilities(forms, maxIdentifierLength, false, false, false, false, -1);
    }

    /** These, where the driver commits a batch once. */
    public Capabilities batchesCommitOnce() {
        return new Capabilities(forms, maxIdentifierLength, true, writeLocksDatabase, readsDatabaseClock,
                notifications, poolIsolation);
    }

    /** These, where a write transaction locks the whole database. */
    public Capabilities writesLockDatabase() {
        return new Capabilities(forms, maxIdentifierLength, batchCommitsOnce, true, readsDatabaseClock,
                notifications, poolIsolation);
    }

    /** These, where the statements can read the database's clock. */
    public Capabilities readingDatabaseClock() {
        return new Capabilities(forms, maxIdentifierLength, batchCommitsOnce, writeLocksDatabase, true,
                notifications, poolIsolation);
    }

    /** These, where the database wakes other processes' subscriptions. */
    public Capabilities notifying() {
        return new Capabilities(forms, maxIdentifierLength, batchCommitsOnce, writeLocksDatabase, readsDatabaseClock,
                true, poolIsolation);
    }

    /** These, with a pool the broker builds at {@code level}. */
    public Capabilities poolAt(int level) {
        return new Capabilities(forms, maxIdentifierLength, batchCommitsOnce, writeLocksDatabase, readsDatabaseClock,
                notifications, level);
    }
}
