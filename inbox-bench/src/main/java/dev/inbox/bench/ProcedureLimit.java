package dev.inbox.bench;

import dev.inbox.ClaimForm;
import dev.inbox.bench.meter.Meter;
import dev.inbox.spi.AdvisoryStatements;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.LeaseStatements;
import dev.inbox.spi.RowLockStatements;
import dev.inbox.spi.TableShape;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;

/**
 * MariaDB's (and MySQL's) limit for a claim form: a stored procedure that runs {@code rounds}
 * claims of one batch and their settlements on the server, called once from each of
 * {@code workers} connections at the same time, so no round trip and no client work is between
 * its statements. The procedure is written from the dialect's own statements, each named
 * parameter ({@code :id}) a variable of the procedure ({@code l_id}); the claim is a cursor, read
 * row by row, and the statements the form runs per row (stamp, ack; advisory's take and count)
 * run for each:
 * <ul>
 *   <li>row lock: the claim, each row's stamp (the attempt) and delete, in one transaction;</li>
 *   <li>lease: the claim and its stamps in one transaction, then the acks in another; the claimed
 *       ids wait between them in a temporary in-memory table, the one thing the procedure does
 *       that the form does not;</li>
 *   <li>advisory: the locking candidate scan (autocommit; its ids into the temporary table), each
 *       row read again under its lock and counted in one transaction, the acks in another, then
 *       the session's locks released.</li>
 * </ul>
 * Each connection runs at the isolation the engine's claims do (READ COMMITTED for lease and row
 * lock, the server's default for advisory's session). The clock runs from the calls' start to the
 * last one's end; the connections are opened before.
 */
final class ProcedureLimit {
    static final String PROCEDURE = "bench_limit";
    static final String CLAIMED = "bench_limit_claimed";
    private static final Duration LEASE = Duration.ofSeconds(30);
    /** As the engine's advisory claim: rows it may read past, whose locks others hold. */
    private static final int SCAN_EXTRA = 256;

    private ProcedureLimit() {}

    /** Runs the rounds; returns the seconds from the calls' start to the last one's end. */
    static double run(BenchDatabase db, ClaimForm form, int workers, int batch, int rounds) throws Exception {
        execute(db, "DROP PROCEDURE IF EXISTS " + PROCEDURE);
        execute(db, procedure(db, form));
        try {
            return call(db, form, workers, batch, rounds);
        } finally {
            execute(db, "DROP PROCEDURE " + PROCEDURE);
        }
    }

    private static double call(BenchDatabase db, ClaimForm form, int workers, int batch, int rounds)
            throws Exception {
        Dialect dialect = db.dialect();
        Instant now = dialect.stored(Instant.now());
        Timestamp expiry = Timestamp.from(dialect.deadline(now, LEASE));
        long planned = (long) rounds * workers * batch;
        Meter.Measured measured = Parallel.time(workers, planned, index -> new Parallel.Worker() {
            final Connection connection = open(db, form);
            final CallableStatement call = connection.prepareCall("{call " + PROCEDURE + "(?, ?, ?, ?, ?, ?)}");

            @Override
            public void run() throws Exception {
                call.setInt(1, batch);
                call.setInt(2, rounds);
                call.setTimestamp(3, Timestamp.from(now));
                call.setTimestamp(4, expiry);
                call.setString(5, BenchDatabase.TABLE + ":");
                call.setInt(6, batch + SCAN_EXTRA);
                call.execute();
            }

            @Override
            public void close() throws Exception {
                connection.close();
            }
        });
        return planned / measured.jobsPerS();
    }

    private static void execute(BenchDatabase db, String sql) throws SQLException {
        try (Connection c = db.connect(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static Connection open(BenchDatabase db, ClaimForm form) throws SQLException {
        Connection connection = db.connect();
        if (form != ClaimForm.ADVISORY) {
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
        return connection;
    }

    /** The procedure's {@code CREATE PROCEDURE} statement. */
    static String procedure(BenchDatabase db, ClaimForm form) {
        Dialect dialect = db.dialect();
        TableShape shape = db.shape(form);
        StringBuilder p = new StringBuilder("CREATE PROCEDURE " + PROCEDURE
                + " (l_limit INT, l_rounds INT, l_now DATETIME, l_expiry DATETIME, l_prefix VARCHAR(255),"
                + " l_scan INT)\nBEGIN\n"
                + "  DECLARE l_id BIGINT;\n"
                + "  DECLARE l_attempt BIGINT;\n"
                + "  DECLARE l_payload LONGBLOB;\n"
                + "  DECLARE l_headers LONGBLOB;\n"
                + "  DECLARE l_key VARCHAR(255);\n"
                + "  DECLARE l_released INT;\n"
                + "  DECLARE l_token DATETIME DEFAULT l_expiry;\n"
                + "  DECLARE l_round INT DEFAULT 0;\n"
                + "  DECLARE l_done BOOLEAN DEFAULT FALSE;\n");
        switch (form) {
            case ROW_LOCK -> {
                RowLockStatements rowLock = dialect.rowLock(shape);
                require(rowLock.style() == LeaseStatements.ClaimStyle.SELECT_THEN_STAMP, "a select then a stamp");
                p.append(cursor("l_claim", rowLock.claim())).append(handler())
                        .append("  WHILE l_round < l_rounds DO\n    START TRANSACTION;\n")
                        .append(loop("l_claim", "l_id, l_attempt, l_payload, l_headers",
                                statement(rowLock.stamp()) + statement(rowLock.ack())))
                        .append("    COMMIT;\n");
            }
            case LEASE -> {
                LeaseStatements lease = dialect.lease(shape);
                require(lease.style() == LeaseStatements.ClaimStyle.SELECT_THEN_STAMP, "a select then a stamp");
                p.append(cursor("l_claim", lease.claim())).append(cursor("l_claimed", "SELECT id FROM " + CLAIMED))
                        .append(handler()).append(claimedTable())
                        .append("  WHILE l_round < l_rounds DO\n    START TRANSACTION;\n")
                        .append(loop("l_claim", "l_id, l_attempt, l_payload, l_headers",
                                statement(lease.stamp()) + "      INSERT INTO " + CLAIMED + " VALUES (l_id);\n"))
                        .append("    COMMIT;\n    START TRANSACTION;\n")
                        .append(loop("l_claimed", "l_id", statement(lease.ack())))
                        .append("    COMMIT;\n    DELETE FROM " + CLAIMED + ";\n");
            }
            case ADVISORY -> {
                AdvisoryStatements advisory = dialect.advisory(shape);
                require(advisory.lockCandidates() != null && advisory.unlockAll() != null, "locks on the server");
                // A take that finds no row (settled by another session since the candidates were read)
                // sets l_done through the handler: the row is passed over, and the loop goes on.
                String take = "      " + Limit.bind(advisory.take(), ProcedureLimit::variable)
                        + " INTO l_id, l_attempt, l_payload, l_headers;\n"
                        + "      IF l_done THEN\n        SET l_done = FALSE;\n        ITERATE l_claimed_loop;\n"
                        + "      END IF;\n";
                p.append(cursor("l_candidates", advisory.lockCandidates()))
                        .append(cursor("l_claimed", "SELECT id FROM " + CLAIMED)).append(handler())
                        .append(claimedTable())
                        .append("  WHILE l_round < l_rounds DO\n")
                        .append(loop("l_candidates", "l_id, l_key",
                                "      INSERT INTO " + CLAIMED + " VALUES (l_id);\n"))
                        .append("    START TRANSACTION;\n")
                        .append(loop("l_claimed", "l_id", take + statement(advisory.count())))
                        .append("    COMMIT;\n    START TRANSACTION;\n")
                        .append(loop("l_claimed", "l_id", statement(advisory.ack())))
                        .append("    COMMIT;\n")
                        .append("    ").append(Limit.bind(advisory.unlockAll(), ProcedureLimit::variable))
                        .append(" INTO l_released;\n")
                        .append("    DELETE FROM " + CLAIMED + ";\n");
            }
        }
        return p.append("    SET l_round = l_round + 1;\n  END WHILE;\nEND").toString();
    }

    private static String variable(String parameter) {
        return "l_" + parameter;
    }

    private static String cursor(String name, String select) {
        return "  DECLARE " + name + " CURSOR FOR " + Limit.bind(select, ProcedureLimit::variable) + ";\n";
    }

    private static String handler() {
        return "  DECLARE CONTINUE HANDLER FOR NOT FOUND SET l_done = TRUE;\n";
    }

    /** Where a claim's ids wait for their acks: in memory, in the session. */
    private static String claimedTable() {
        return "  CREATE TEMPORARY TABLE IF NOT EXISTS " + CLAIMED + " (id BIGINT PRIMARY KEY) ENGINE=MEMORY;\n"
                + "  DELETE FROM " + CLAIMED + ";\n";
    }

    /** Reads {@code cursor} into {@code into}, running {@code body} for each row. */
    private static String loop(String cursor, String into, String body) {
        String label = cursor + "_loop";
        return "    SET l_done = FALSE;\n    OPEN " + cursor + ";\n    " + label + ": LOOP\n"
                + "      FETCH " + cursor + " INTO " + into + ";\n"
                + "      IF l_done THEN\n        LEAVE " + label + ";\n      END IF;\n"
                + body
                + "    END LOOP;\n    CLOSE " + cursor + ";\n";
    }

    /** A statement of the dialect, its parameters the procedure's variables; nothing where there is none. */
    private static String statement(String sql) {
        return sql == null ? "" : "      " + Limit.bind(sql, ProcedureLimit::variable) + ";\n";
    }

    private static void require(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException("the limit's procedure needs " + what);
        }
    }
}
