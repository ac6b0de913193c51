package dev.inbox.engine;

import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.MySQLContainer;

/**
 * A real MySQL for the tests where {@code INBOX_TEST_MYSQL_URL} names none: started once with
 * Testcontainers where a Docker engine runs ({@code inbox.test.mysql.image}, default
 * {@code mysql:8.4}); without one, the MySQL cases are skipped, saying why.
 */
final class MySqlContainer {
    private static MySQLContainer<?> container;

    private MySqlContainer() {}

    static synchronized String url() {
        if (container == null) {
            Assumptions.assumeTrue(dockerAvailable(), "no MySQL server for the MySQL cases: set INBOX_TEST_MYSQL_URL"
                    + " to one, or run a Docker engine for Testcontainers to start one");
            MySQLContainer<?> mysql = new MySQLContainer<>(System.getProperty("inbox.test.mysql.image", "mysql:8.4"))
                    .withDatabaseName("test").withUsername("root").withPassword("inbox");
            mysql.start();
            container = mysql;
        }
        return container.getJdbcUrl() + "?user=root&password=inbox&allowPublicKeyRetrieval=true&sslMode=DISABLED";
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }
}
