package dev.inbox.bench;

import dev.inbox.ClaimForm;
import dev.inbox.spi.NamedSql;
import java.util.function.UnaryOperator;

/**
 * The database's own limit for a claim form: the jobs per second it claims and settles with the
 * form's statements, in transactions of the same batch, when the client does as little as it can.
 * PostgreSQL: {@code pgbench} runs a script of the statements (see {@link PgbenchLimit}); MariaDB:
 * a stored procedure loops them on the server (see {@link ProcedureLimit}). SQLite runs in the
 * benchmark's process, so its plain JDBC loop is already the database's limit.
 *
 * <p>A run fills the table with one batch more per worker than it claims, so no claim ever finds
 * the table short, and counts the rows it deleted.
 */
final class Limit {

    /**
     * A run's result.
     *
     * @param jobsPerS the rows deleted per second
     * @param rounds   the claims of each worker
     * @param planned  the rows the run's claims asked for: rounds × workers × batch
     * @param settled  the rows it deleted: as planned for lease and row lock, where every claim
     *                 finds a full batch; advisory claims may take fewer (their scan passes over
     *                 rows other sessions hold)
     * @param seconds  how long the claims took
     * @param via      {@code pgbench} or {@code procedure}
     */
    record Run(double jobsPerS, int rounds, long planned, long settled, double seconds, String via) {}

    private Limit() {}

    /** Why {@code db} has no limit figure; null when it has one. */
    static String unavailable(BenchDatabase db) {
        return switch (db.name()) {
            case "postgres" -> PgbenchLimit.executable().isPresent() ? null
                    : "pgbench is not on the PATH (install the PostgreSQL client tools)";
            case "mariadb" -> null;
            case "galera" -> "not measured on the cluster: its drain is measured beside the plain MariaDB's";
            default -> "the database runs in the benchmark's process: the plain JDBC loop of the drain is its limit";
        };
    }

    /** Each of {@code workers} sessions claims {@code rounds} batches and settles them. */
    static Run run(BenchDatabase db, ClaimForm form, int workers, int batch, int rounds) throws Exception {
        long planned = (long) rounds * workers * batch;
        long filled = planned + (long) workers * batch;
        db.fill(form, Math.toIntExact(filled));
        boolean pgbench = db.name().equals("postgres");
        double seconds = pgbench ? PgbenchLimit.run(db, form, workers, batch, rounds)
                : ProcedureLimit.run(db, form, workers, batch, rounds);
        long left = db.count(BenchDatabase.TABLE);
        if (left < filled - planned) {
            throw new IllegalStateException("the run deleted " + (filled - left) + " rows, more than the "
                    + planned + " its claims asked for");
        }
        long settled = filled - left;
        return new Run(settled / seconds, rounds, planned, settled, seconds, pgbench ? "pgbench" : "procedure");
    }

    /** {@code sql} with each named parameter ({@code :id}) replaced by {@code parameter.apply("id")}. */
    static String bind(String sql, UnaryOperator<String> parameter) {
        return NamedSql.replace(sql, parameter);
    }
}
