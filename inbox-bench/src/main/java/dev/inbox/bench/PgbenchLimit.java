package dev.inbox.bench;

import dev.inbox.ClaimForm;
import dev.inbox.spi.AdvisoryStatements;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.LeaseStatements;
import dev.inbox.spi.RowLockStatements;
import dev.inbox.spi.TableShape;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PostgreSQL's limit for a claim form: {@code pgbench -M prepared}, one client per worker, each
 * transaction of its script a claim of one batch and its settlement, with the dialect's own
 * statements. pgbench's variables are written {@code :name}, as the dialect's parameters are, so a
 * statement goes into the script as the dialect wrote it, its parameters set with {@code -D}: the
 * run's {@code :now}, fixed, and an {@code :expiry} (the acks' {@code :token}) 30 s later, so no
 * lease of the run expires.
 *
 * <p>A claim runs inside a query that hands its ids to pgbench as one array variable
 * ({@code \gset} into {@code :ids}). The statements the form runs once per row (ack, and
 * advisory's take and count), which the engine sends as one JDBC batch, run once for the batch,
 * {@code "id" = :id} written {@code "id" = ANY(:ids)}: pgbench has no loop, a statement per row
 * would be a prepared statement per row of the batch, and one execution for the batch does less
 * work on the server than one per row, as a limit should. Each transaction's statements after the
 * claim go in one pipeline (one round trip):
 * <ul>
 *   <li>lease: the claim commits alone, then the acks in one transaction;</li>
 *   <li>row lock: the claim (which counts the attempt) and the deletes in one transaction (one
 *       statement cannot do both: a statement's CTE and its main query may not change one row
 *       twice);</li>
 *   <li>advisory: the locking candidate scan, then the takes (the rows read again under their
 *       locks) and counts in one transaction, the acks in another, then the session's locks
 *       released.</li>
 * </ul>
 */
final class PgbenchLimit {
    private static final Duration LEASE = Duration.ofSeconds(30);
    /** As the engine's advisory claim: rows it may read past, whose locks others hold. */
    private static final int SCAN_EXTRA = 256;
    private static final Duration TIMEOUT = Duration.ofMinutes(5);
    private static final Pattern PROCESSED = Pattern.compile("number of transactions actually processed: (\\d+)/");
    private static final Pattern TPS = Pattern.compile(
            "tps = ([0-9.]+) \\((?:without initial connection time|excluding connections establishing)\\)");

    private PgbenchLimit() {}

    /** pgbench on the PATH, if there is one. */
    static Optional<Path> executable() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String directory : path.split(java.io.File.pathSeparator)) {
            if (directory.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(directory, "pgbench");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /**
     * Runs {@code rounds} transactions on each of {@code workers} clients against the filled table;
     * returns the seconds they took, as pgbench measures them (from the clients' connections to
     * their last transaction's end).
     */
    static double run(BenchDatabase db, ClaimForm form, int workers, int batch, int rounds) throws Exception {
        Path pgbench = executable().orElseThrow(() -> new IllegalStateException("pgbench is not on the PATH"));
        Server server = Server.of(db.url());
        Path directory = Files.createTempDirectory("inbox-bench-pgbench");
        Path script = directory.resolve(BenchArgs.name(form) + ".sql");
        try {
            Files.writeString(script, script(db, form, batch));
            Instant now = db.dialect().stored(Instant.now()).truncatedTo(ChronoUnit.MICROS);
            String expiry = db.dialect().deadline(now, LEASE).toString();
            List<String> command = new ArrayList<>(List.of(pgbench.toString(), "-h", server.host(),
                    "-p", String.valueOf(server.port()), "-n", "-M", "prepared",
                    "-c", String.valueOf(workers), "-j", String.valueOf(workers), "-t", String.valueOf(rounds),
                    "-f", script.toString(),
                    "-D", "now=" + now, "-D", "expiry=" + expiry, "-D", "token=" + expiry,
                    "-D", "limit=" + batch, "-D", "scan=" + (batch + SCAN_EXTRA),
                    "-D", "prefix=" + BenchDatabase.TABLE + ":"));
            if (server.user() != null) {
                command.addAll(List.of("-U", server.user()));
            }
            if (!server.database().isEmpty()) {
                command.add(server.database());
            }
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            if (server.password() != null) {
                builder.environment().put("PGPASSWORD", server.password()); // in the environment, never printed
            }
            Process process = builder.start();
            process.getOutputStream().close();
            // Read while it runs: pgbench would stop on a full pipe.
            var output = process.getInputStream().readAllBytes();
            if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("pgbench did not end in " + TIMEOUT);
            }
            String text = new String(output, StandardCharsets.UTF_8);
            double processed = number(PROCESSED, text);
            double tps = number(TPS, text);
            if (process.exitValue() != 0 || processed != (long) workers * rounds || !(tps > 0)) {
                throw new IllegalStateException("pgbench ended with " + process.exitValue() + " after "
                        + (long) processed + " of " + (long) workers * rounds + " transactions:\n" + text.strip());
            }
            return processed / tps;
        } finally {
            Files.deleteIfExists(script);
            Files.deleteIfExists(directory);
        }
    }

    private static double number(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }

    /** One claim of {@code batch} rows and its settlement, as a pgbench script. */
    static String script(BenchDatabase db, ClaimForm form, int batch) {
        Dialect dialect = db.dialect();
        TableShape shape = db.shape(form);
        StringBuilder s = new StringBuilder();
        switch (form) {
            case LEASE -> {
                LeaseStatements lease = dialect.lease(shape);
                require(lease.style() == LeaseStatements.ClaimStyle.RETURNING, "a lease claim of one statement");
                claim(s, lease.claim());
                s.append("\\startpipeline\nBEGIN;\n").append(forAll(lease.ack())).append("COMMIT;\n\\endpipeline\n");
            }
            case ROW_LOCK -> {
                RowLockStatements rowLock = dialect.rowLock(shape);
                require(rowLock.style() == LeaseStatements.ClaimStyle.RETURNING, "a row lock claim of one statement");
                s.append("BEGIN;\n");
                claim(s, rowLock.claim());
                s.append("\\startpipeline\n").append(forAll(rowLock.ack())).append("COMMIT;\n\\endpipeline\n");
            }
            case ADVISORY -> {
                AdvisoryStatements advisory = dialect.advisory(shape);
                require(advisory.lockCandidates() != null && advisory.unlockAll() != null, "locks on the server");
                claim(s, advisory.lockCandidates());
                s.append("\\startpipeline\nBEGIN;\n").append(forAll(advisory.take()));
                if (advisory.count() != null) {
                    s.append(forAll(advisory.count()));
                }
                s.append("COMMIT;\nBEGIN;\n").append(forAll(advisory.ack())).append("COMMIT;\n")
                        .append(advisory.unlockAll()).append(";\n\\endpipeline\n");
            }
        }
        return s.toString();
    }

    /** The claim, the ids it took (its first column) set as the array {@code :ids}. */
    private static void claim(StringBuilder s, String claim) {
        s.append("WITH claimed AS (").append(claim)
                .append(") SELECT COALESCE(array_agg(id), '{}') AS ids FROM claimed\n\\gset\n");
    }

    /** A statement of the one row {@code "id" = :id}, run once for all the claimed rows {@code :ids}. */
    private static String forAll(String sql) {
        String marked = Limit.bind(sql, name -> name.equals("id") ? "\0" : ":" + name);
        require(marked.contains("= \0") && marked.replace("= \0", "").indexOf('\0') < 0,
                "statements of one row that compare the id to :id");
        return marked.replace("\0", "ANY(:ids)") + ";\n";
    }

    private static void require(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException("the limit's pgbench script needs " + what);
        }
    }

    /** Where pgbench connects: the benchmark's JDBC URL, {@code jdbc:postgresql://host[:port]/database?user=..}. */
    record Server(String host, int port, String database, String user, String password) {
        static Server of(String url) {
            String prefix = "jdbc:postgresql:";
            if (!url.startsWith(prefix)) {
                throw new IllegalArgumentException("not a PostgreSQL JDBC URL");
            }
            String rest = url.substring(prefix.length());
            URI uri = URI.create("postgresql:" + (rest.startsWith("//") ? rest : "///" + rest));
            Map<String, String> query = new HashMap<>();
            if (uri.getRawQuery() != null) {
                for (String pair : uri.getRawQuery().split("&")) {
                    String[] kv = pair.split("=", 2);
                    query.put(decode(kv[0]), kv.length == 2 ? decode(kv[1]) : "");
                }
            }
            String path = uri.getPath() == null ? "" : uri.getPath();
            String host = uri.getHost() == null ? "localhost" : uri.getHost();
            return new Server(host.startsWith("[") ? host.substring(1, host.length() - 1) : host,
                    uri.getPort() < 0 ? 5432 : uri.getPort(), path.startsWith("/") ? path.substring(1) : path,
                    query.get("user"), query.get("password"));
        }

        private static String decode(String s) {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        }

        /** Without the password. */
        @Override
        public String toString() {
            return "Server[" + host + ":" + port + "/" + database + ", user " + user + "]";
        }
    }
}
