package dev.inbox.internal.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * A handler's failure is logged with its stack trace, causes and suppressed exceptions, none of
 * which may carry a password: a handler that fails on its own JDBC connection throws the driver's
 * exception, whose message (or its cause's) can hold the URL. Before, the first failure of a kind
 * logged the raw exception, and its trace printed {@code password=s3cret} from the cause.
 */
class HandlerFailuresTest {
    private static final String SECRET = "s3cret-Pa55";

    @Test
    void theLoggedTraceKeepsItsChainButNoPasswordAndNoEndlessMessage() {
        SQLException driver = new SQLException("Connection to jdbc:postgresql://db/app?user=app&password=" + SECRET
                + " refused", new RuntimeException("x".repeat(100_000)));
        RuntimeException failure = new IllegalStateException("booking failed", driver);
        failure.addSuppressed(new SQLException("close failed for jdbc:mysql://app:" + SECRET + "@db/app"));

        List<String> printed = new CopyOnWriteArrayList<>();
        Logger logger = Logger.getLogger(HandlerFailures.class.getName());
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                StringWriter trace = new StringWriter();
                if (record.getThrown() != null) {
                    record.getThrown().printStackTrace(new PrintWriter(trace));
                }
                printed.add(record.getMessage() + "\n" + trace);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        logger.addHandler(capture);
        Level before = logger.getLevel();
        logger.setLevel(Level.ALL);
        try {
            HandlerFailures failures = new HandlerFailures("bookings");
            failures.failed("row 5 (attempt 1)", failure, "it is due again in 1 s");
            failures.failed("row 6 (attempt 1)", failure, "it is due again in 1 s"); // the repeat, at DEBUG
        } finally {
            logger.removeHandler(capture);
            logger.setLevel(before);
        }

        assertThat(printed).hasSize(3).allSatisfy(line -> assertThat(line).doesNotContain(SECRET));
        String first = printed.get(0);
        assertThat(first).contains("java.lang.IllegalStateException: booking failed",
                "Caused by: java.sql.SQLException: Connection to jdbc:postgresql://db/app?user=app&password=***",
                "Suppressed: java.sql.SQLException: close failed for jdbc:mysql://app:***@db/app",
                "at " + HandlerFailuresTest.class.getName());
        assertThat(first.length()).as("the 100,000-character message is cut").isLessThan(20_000);
    }
}
