package dev.inbox.engine;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PostgreSQL primary and synchronous standby of {@code scripts/pg-pair.sh}, which starts, kills,
 * stops and promotes them; here the tests call it and look at each node directly. A script that
 * cannot run, or fails, fails the test with its output: nothing is skipped.
 */
final class PgPair {
    private static final Pattern HOSTS = Pattern.compile("//127\\.0\\.0\\.1:(\\d+),127\\.0\\.0\\.1:(\\d+)/");

    private final ProjectScript script;
    private final String url;
    private final int firstPort;
    private final int secondPort;

    private PgPair(ProjectScript script) {
        this.script = script;
        this.url = run("url").strip();
        Matcher m = HOSTS.matcher(url);
        if (!m.find()) {
            throw new IllegalStateException("pg-pair.sh url gave no two loopback hosts: " + url);
        }
        this.firstPort = Integer.parseInt(m.group(1));
        this.secondPort = Integer.parseInt(m.group(2));
    }

    /** The pair of the script the build names ({@code inbox.pg.pair.script}). */
    static PgPair fromBuild() {
        return new PgPair(ProjectScript.fromBuild("inbox.pg.pair.script", "pg-pair.sh"));
    }

    /** The multi-host URL: pgjdbc connects to whichever node is the primary. */
    String url() {
        return url;
    }

    /** A primary and a standby streaming from it synchronously. */
    void start() {
        run("start");
    }

    /** {@code kill -9} of the primary's postmaster. */
    void killPrimary() {
        run("kill-primary");
    }

    /** A clean stop of the primary. */
    void stopPrimary() {
        run("stop-primary");
    }

    /** Promotes the standby, which then commits alone. */
    void promote() {
        run("promote");
    }

    void stop() {
        run("stop");
    }

    /** The port of the node that is the primary now. */
    int primaryPort() {
        for (int port : new int[] {firstPort, secondPort}) {
            if ("primary".equals(role(port))) {
                return port;
            }
        }
        throw new IllegalStateException("no node of the pair is a primary");
    }

    /** The port of the node that is a standby now. */
    int standbyPort() {
        for (int port : new int[] {firstPort, secondPort}) {
            if ("standby".equals(role(port))) {
                return port;
            }
        }
        throw new IllegalStateException("no node of the pair is a standby");
    }

    /** {@code primary}, {@code standby} or {@code down}. */
    String role(int port) {
        try (Connection c = connect(port); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery()")) {
            rs.next();
            return rs.getBoolean(1) ? "standby" : "primary";
        } catch (SQLException e) {
            return "down";
        }
    }

    /** Sessions of other clients on the node whose last statement was a LISTEN: a listening connection. */
    long listeningSessions(int port) throws SQLException {
        try (Connection c = connect(port); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                        + " AND pid <> pg_backend_pid() AND query ILIKE 'LISTEN %'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** {@link #listeningSessions}, or 0 where the node does not answer. */
    long listeningSessionsOr0(int port) {
        try {
            return listeningSessions(port);
        } catch (SQLException e) {
            return 0;
        }
    }

    /** A connection to one node, whatever its role. */
    Connection connect(int port) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port
                + "/test?user=postgres&connectTimeout=5&socketTimeout=30");
    }

    private String run(String command) {
        return script.run(command, true);
    }
}
