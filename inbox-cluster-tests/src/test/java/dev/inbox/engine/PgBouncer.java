package dev.inbox.engine;

import dev.inbox.testdb.TestServers;

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

    /**
     * Both poolers running; installs PgBouncer where missing. In front of the machine's PostgreSQL
     * at 127.0.0.1:5432, or, where none answers there, the embedded one the tests start in its
     * place for the rest of this JVM.
     */
    void start() {
        TestServers.orEmbedded("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
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
