package dev.inbox.bench.peers;

import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps the SLF4J loggers quiet but for errors. The peers part brings slf4j-jdk14, so the peers,
 * the connection pools and the MariaDB driver log into java.util.logging, where they would
 * otherwise print every start and stop, JobRunr's warnings about slow filters on a busy machine,
 * and the driver's warning for each table the engine looks for and does not find. Before the
 * peers part they had no SLF4J binding and printed nothing.
 */
public final class PeerLogging {
    /** Held here: java.util.logging keeps its loggers, and so their levels, only while referenced. */
    private static final List<Logger> QUIET = List.of(Logger.getLogger("org.jobrunr"),
            Logger.getLogger("com.github.kagkarlsson"), Logger.getLogger("com.zaxxer.hikari"),
            Logger.getLogger("org.mariadb.jdbc"));

    private PeerLogging() {}

    /** Called once at the start of the benchmark, before any pool, driver or peer logs. */
    public static void quiet() {
        QUIET.forEach(logger -> logger.setLevel(Level.SEVERE));
    }
}
