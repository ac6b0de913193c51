package dev.inbox.internal.jdbc;

import dev.inbox.spi.BrokerListener;
import dev.inbox.spi.Dialect;
import java.lang.System.Logger.Level;
import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Runs a transaction of a queue again where the database rolled it back for a concurrent one that
 * won ({@link Dialect#lostRace}): a deadlock victim, or on Galera a transaction another node's
 * certified first. Nothing of it took effect, so running it again is safe; each lost race is told
 * to the listener and logged at DEBUG, and only a race lost {@link #TRIES} times in a row ends the
 * work: it fails, or gives what the caller takes in its place.
 * Engine-internal; public for the claim forms.
 *
 * <pre>{@code
 * LostRaces races = new LostRaces(queue, "claim", dialect, listener);
 * List<InFlight> rows = races.run(() -> claimOnce(connection));
 * }</pre>
 */
public final class LostRaces {
    private static final System.Logger LOG = System.getLogger(LostRaces.class.getName());
    /** A transaction that loses this many races in a row fails as any other does. */
    static final int TRIES = 10;

    private final String queue;
    private final String what;
    private final Dialect dialect;
    private final BrokerListener listener;

    /** @param what the transaction, for the listener and the log ({@code claim}, {@code settlement}) */
    public LostRaces(String queue, String what, Dialect dialect, BrokerListener listener) {
        this.queue = queue;
        this.what = what;
        this.dialect = dialect;
        this.listener = listener;
    }

    /**
     * Runs {@code work}, again each time it loses a race, up to {@link #TRIES} times. Each try waits
     * a few random milliseconds first (more after each loss): claims on several Galera nodes that
     * read the same head rows race again at once, and lose again while the winner's write set is
     * still on its way to their node.
     */
    public <T> T run(JdbcTransaction.Work<T> work) throws SQLException {
        return run(work, null);
    }

    /**
     * {@link #run(JdbcTransaction.Work)}, but {@code ifLostEveryTry} where it lost {@link #TRIES}
     * races in a row (a claim: others took the rows it read, and it takes what comes next time),
     * or, where that is null, the last race's failure.
     */
    public <T> T run(JdbcTransaction.Work<T> work, T ifLostEveryTry) throws SQLException {
        for (int tries = 1;; tries++) {
            try {
                return work.run();
            } catch (SQLException e) {
                if (!lost(e)) {
                    throw e;
                }
                if (tries == TRIES) {
                    if (ifLostEveryTry == null) {
                        throw e;
                    }
                    return ifLostEveryTry;
                }
                try {
                    Thread.sleep(ThreadLocalRandom.current().nextInt(2 * tries + 1));
                } catch (InterruptedException stop) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /**
     * True when {@code e} is a lost race: told and logged as one. For a transaction the caller does
     * not run again itself (a delivery's, whose row then goes back for another attempt).
     */
    public boolean lost(SQLException e) {
        if (!dialect.lostRace(e)) {
            return false;
        }
        listener.raceLost(queue, what);
        LOG.log(Level.DEBUG, () -> "queue " + queue + ": a " + what + " lost a race to a concurrent transaction and"
                + " was rolled back: " + Redaction.redact(String.valueOf(e.getMessage())));
        return true;
    }
}
