package dev.inbox.engine;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The three-node MariaDB Galera Cluster of {@code scripts/galera.sh}, which starts it, kills a node
 * and starts one again; here the tests call it and look at each node directly. A script that
 * cannot run, or fails, fails the test with its output: nothing is skipped.
 */
final class GaleraCluster {
    /** Node N answers SQL on {@code FIRST_PORT - 1 + N}. */
    private static final int FIRST_PORT = 3311;

    private final ClusterScript script;

    private GaleraCluster(ClusterScript script) {
        this.script = script;
    }

    /** The cluster of the script the build names ({@code inbox.galera.script}). */
    static GaleraCluster fromBuild() {
        return new GaleraCluster(ClusterScript.fromBuild("inbox.galera.script", "galera.sh"));
    }

    /** Three nodes, each Synced and ready, with the database {@code test}. */
    void start() {
        script.run("start");
    }

    /** {@code kill -9} of node {@code node}'s server. */
    void kill(int node) {
        script.run("kill", String.valueOf(node));
    }

    /** Starts node {@code node} again; returns once it is Synced. */
    void startNode(int node) {
        script.run("start-node", String.valueOf(node));
    }

    void stop() {
        script.run("stop");
    }

    /** The multi-host URL that reaches the first node that answers (Connector/J's sequential mode). */
    String url() {
        return script.run("url").strip();
    }

    /** The URL of node {@code node} alone. */
    static String url(int node) {
        return "jdbc:mariadb://127.0.0.1:" + (FIRST_PORT - 1 + node) + "/test?user=root";
    }

    /** A status variable of node {@code node} ({@code wsrep_local_state_comment}, say). */
    String status(int node, String variable) throws SQLException {
        try (Connection c = connect(node); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE '" + variable + "'")) {
            return rs.next() ? rs.getString(2) : null;
        }
    }

    /** A connection to node {@code node}, whose reads wait until the node has applied what the cluster committed. */
    Connection connect(int node) throws SQLException {
        Connection c = DriverManager.getConnection(url(node) + "&connectTimeout=5000&socketTimeout=30000");
        try (Statement s = c.createStatement()) {
            s.execute("SET SESSION wsrep_sync_wait = 1");
        }
        return c;
    }
}
