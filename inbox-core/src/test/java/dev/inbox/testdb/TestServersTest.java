package dev.inbox.testdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Where nothing answers at a test URL's port, TestServers starts an embedded server there that
 * serves the URL as written; a URL whose port answers is left alone. (Free ports, so this runs
 * beside the machine's own servers.)
 */
class TestServersTest {
    private static final List<Integer> STARTED = new ArrayList<>();

    /**
     * Its servers end with the class, not with the JVM: a later test that restarts the machine's
     * MariaDB waits until no mariadbd process runs (DatabaseRestartTest's pgrep).
     */
    @AfterAll
    static void stopTheServersStartedHere() {
        STARTED.forEach(TestServers::stop);
    }

    @Test
    void aPostgresUrlWithNothingBehindItGetsAnEmbeddedServerThatStopsAndStartsAgain() throws Exception {
        int port = freePort();
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/embedded_test?user=postgres";
        assertThat(TestServers.orEmbedded(url)).isEqualTo(url);
        STARTED.add(port);
        assertThat(TestServers.embedded(port)).isTrue();
        assertThat(version(url)).startsWith("PostgreSQL");
        TestServers.stop(port);
        assertThat(TestServers.answers(port)).isFalse();
        TestServers.start(port);
        assertThat(version(url)).startsWith("PostgreSQL");
    }

    @Test
    void aMariaDbUrlWithNothingBehindItGetsAnEmbeddedServerBothDriversReachWithItsGrantTables() throws Exception {
        int port = freePort();
        String url = "jdbc:mariadb://127.0.0.1:" + port + "/embedded_test?user=root";
        TestServers.orEmbedded(url);
        STARTED.add(port);
        assertThat(version(url)).contains("MariaDB");
        assertThat(version("jdbc:mysql://127.0.0.1:" + port + "/embedded_test?user=root&sslMode=DISABLED")).contains("MariaDB");
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("CREATE USER IF NOT EXISTS 'embedded_user'@'%'");   // as the engine tests do
            s.execute("GRANT ALL ON *.* TO 'embedded_user'@'%'");
        }
        assertThat(version("jdbc:mariadb://127.0.0.1:" + port + "/embedded_test?user=embedded_user")).contains("MariaDB");
    }

    @Test
    void aUrlOfAnotherHostOrOfAPortThatAnswersIsLeftAlone() throws Exception {
        try (ServerSocket listening = new ServerSocket(0)) {
            String answering = "jdbc:postgresql://127.0.0.1:" + listening.getLocalPort() + "/x?user=postgres";
            assertThat(TestServers.orEmbedded(answering)).isEqualTo(answering);
        }
        assertThat(TestServers.orEmbedded("jdbc:sqlite:/tmp/x.db")).isEqualTo("jdbc:sqlite:/tmp/x.db");
        assertThat(TestServers.orEmbedded("jdbc:postgresql://db.example:5432/x")).isEqualTo("jdbc:postgresql://db.example:5432/x");
    }

    private static String version(String url) throws Exception {
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT version()")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
