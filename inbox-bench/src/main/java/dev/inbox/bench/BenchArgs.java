package dev.inbox.bench;

import dev.inbox.ClaimForm;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The benchmark's arguments, each {@code name=value}, all optional:
 *
 * <pre>
 * jobs=2000                      jobs of each figure's first, unmeasured run (warm-up and calibration),
 *                                and the fewest a measured run takes
 * seconds=2                      how long a measured run should last: it takes the jobs the faster side
 *                                did in that time in the first run, at most 100,000
 * repeats=1                      measured runs per figure; the best is reported
 * dbs=postgres,mariadb,sqlite     or galera: node 1 of scripts/galera.sh (INBOX_BENCH_GALERA_URL), lease only
 * forms=lease,rowlock,advisory   each database runs those it serves (SQLite: lease, advisory)
 * workers=1,4,16                 the limit part: 4,16 unless given
 * batches=1,16,64,256            claim batch sizes; for publish, 1 is single inserts and more a batch;
 *                                the limit part takes those of 16 or more
 * only=drain,limit,publish,txdrain,latency,peers
 * </pre>
 *
 * @param workersGiven whether {@code workers=} was given, not the default
 */
record BenchArgs(int jobs, int seconds, int repeats, List<String> dbs, List<ClaimForm> forms, List<Integer> workers,
        List<Integer> batches, List<String> only, boolean workersGiven) {

    static final List<String> PARTS = List.of("drain", "limit", "publish", "txdrain", "latency", "peers");
    static final List<String> DATABASES = List.of("postgres", "mariadb", "sqlite");
    /** Besides {@link #DATABASES}, run only when named: it needs the cluster of scripts/galera.sh. */
    static final String GALERA = "galera";
    private static final List<String> NAMED_DATABASES = List.of("postgres", "mariadb", "sqlite", GALERA);
    /** Where the engine's throughput is near the database's; one worker is bound by its round trips. */
    private static final List<Integer> LIMIT_WORKERS = List.of(4, 16);
    /** The smallest batch the limit part measures: below it the client's round trips, not the database, bound a run. */
    private static final int LIMIT_SMALLEST_BATCH = 16;

    static BenchArgs parse(String... args) {
        int jobs = 2000;
        int seconds = 2;
        int repeats = 1;
        List<String> dbs = DATABASES;
        List<ClaimForm> forms = List.of(ClaimForm.LEASE, ClaimForm.ROW_LOCK, ClaimForm.ADVISORY);
        List<Integer> workers = List.of(1, 4, 16);
        List<Integer> batches = List.of(1, 16, 64, 256);
        List<String> only = PARTS;
        boolean workersGiven = false;
        for (String arg : args) {
            if (arg.isBlank()) {
                continue;
            }
            String[] kv = arg.split("=", 2);
            String value = kv.length == 2 ? kv[1].trim() : "";
            switch (kv[0].trim()) {
                case "jobs" -> jobs = positive("jobs", value);
                case "seconds" -> seconds = positive("seconds", value);
                case "repeats" -> repeats = positive("repeats", value);
                case "dbs" -> dbs = names("dbs", value, NAMED_DATABASES);
                case "forms" -> forms = names("forms", value, List.of("lease", "rowlock", "advisory")).stream()
                        .map(BenchArgs::form).toList();
                case "workers" -> {
                    workers = numbers("workers", value);
                    workersGiven = true;
                }
                case "batches" -> batches = numbers("batches", value);
                case "only" -> only = names("only", value, PARTS);
                default -> throw new IllegalArgumentException("unknown argument " + arg
                        + ": use jobs=, seconds=, repeats=, dbs=, forms=, workers=, batches=, only=");
            }
        }
        return new BenchArgs(jobs, seconds, repeats, dbs, forms, workers, batches, only, workersGiven);
    }

    /** The arguments as they would be written, for the results' heading. */
    String describe() {
        return "jobs=" + jobs + " seconds=" + seconds + " repeats=" + repeats + " dbs=" + String.join(",", dbs) + " forms="
                + String.join(",", forms.stream().map(BenchArgs::name).toList()) + " workers=" + join(workers)
                + " batches=" + join(batches) + " only=" + String.join(",", only);
    }

    private static String join(List<Integer> numbers) {
        return String.join(",", numbers.stream().map(String::valueOf).toList());
    }

    boolean runs(String part) {
        return only.contains(part);
    }

    /** The limit part's workers: those given, else 4 and 16. */
    List<Integer> limitWorkers() {
        return workersGiven ? workers : LIMIT_WORKERS;
    }

    /** The limit part's batch sizes: those of 16 or more. */
    List<Integer> limitBatches() {
        return batches.stream().filter(b -> b >= LIMIT_SMALLEST_BATCH).toList();
    }

    /** The largest batch size asked for: the one the transactional drain uses. */
    int bestBatch() {
        return batches.stream().mapToInt(Integer::intValue).max().orElseThrow();
    }

    /** The name a line prints for a form: {@code lease}, {@code rowlock}, {@code advisory}. */
    static String name(ClaimForm form) {
        return form.name().replace("_", "").toLowerCase(Locale.ROOT);
    }

    private static ClaimForm form(String name) {
        return switch (name) {
            case "lease" -> ClaimForm.LEASE;
            case "rowlock" -> ClaimForm.ROW_LOCK;
            default -> ClaimForm.ADVISORY;
        };
    }

    private static int positive(String name, String value) {
        int n;
        try {
            n = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + "=" + value + " is not a number");
        }
        if (n < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, not " + n);
        }
        return n;
    }

    private static List<Integer> numbers(String name, String value) {
        List<Integer> numbers = new ArrayList<>();
        for (String part : value.split(",")) {
            numbers.add(positive(name, part.trim()));
        }
        return List.copyOf(numbers);
    }

    private static List<String> names(String name, String value, List<String> known) {
        List<String> names = new ArrayList<>();
        for (String part : value.split(",")) {
            String n = part.trim().toLowerCase(Locale.ROOT);
            if (!known.contains(n)) {
                throw new IllegalArgumentException(name + "=" + value + ": " + n + " is not one of " + known);
            }
            names.add(n);
        }
        return List.copyOf(names);
    }
}
