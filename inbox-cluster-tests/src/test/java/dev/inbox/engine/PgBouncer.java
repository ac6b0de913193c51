package dev.inbox.engine;


/**
 * The PgBouncer of {@code scripts/pgbouncer.sh}: transaction pooling and session pooling in front
 * of a database of its own on the development PostgreSQL. A script that cannot run, or fails,
 * fails the test with its output: nothing is skipped.
 */
final class PgBouncer {
    private final ClusterScript script;
    private final String transactionUrl;
    private final String sessionUrl;
    private final String directUrl;

    private PgBouncer(ClusterScript script) {
        this.script = script;
        this.transactionUrl = run("url-tx").strip();
        this.sessionUrl = run("url-session").strip();
        this.directUrl = run("url-direct").strip();
    }

    /** The script the build names ({@code inbox.pgbouncer.script}). */
    static PgBouncer fromBuild() {
        return new PgBouncer(ClusterScript.fromBuild("inbox.pgbouncer.script", "pgbouncer.sh"));
    }

    /** Both poolers running; installs PgBouncer where missing. */
    void start() {
        run("start");
    }

    void stop() {
        run("stop");
    }

    /** Through {@code pool_mode=transaction}, with {@code prepareThreshold=0}. */
    String transactionUrl() {
        return transactionUrl;
    }

    /** Through {@code pool_mode=session}. */
    String sessionUrl() {
        return sessionUrl;
    }

    /** The pooled database itself, for the tests' own statements. */
    String directUrl() {
        return directUrl;
    }

    String version() {
        return run("version").strip();
    }

    private String run(String command) {
        return script.read(command);
    }
}
