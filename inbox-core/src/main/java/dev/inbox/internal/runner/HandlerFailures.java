package dev.inbox.internal.runner;

import dev.inbox.internal.jdbc.Redaction;
import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Logs a subscription's failed attempts readably: one WARNING line per failed attempt naming the
 * queue, row, attempt, cause and what becomes of the row; the stack trace with the first failure
 * of each kind (its exception class and where it was thrown), and at DEBUG for the repeats, so a
 * row that fails for ever does not flood the log with traces.
 */
final class HandlerFailures {
    private static final System.Logger LOG = System.getLogger(HandlerFailures.class.getName());
    /** Kinds of failure whose trace was logged; the oldest is forgotten past this many. */
    private static final int KINDS = 64;

    private final String queue;
    private final Map<String, Boolean> traced = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > KINDS;
        }
    };

    HandlerFailures(String queue) {
        this.queue = queue;
    }

    /**
     * A handler (or a batch handler, for {@code rows}) failed with {@code failure}.
     *
     * @param rows  the rows, such as "row 5 (attempt 2)"
     * @param next  what becomes of them, such as "it is due again in 4 s"
     */
    void failed(String rows, Throwable failure, String next) {
        String line = "queue " + queue + ": the handler failed on " + rows + " with " + describe(failure) + "; "
                + next;
        if (firstOfItsKind(failure)) {
            LOG.log(Level.WARNING, line + " (the stack trace follows once for each kind of failure)",
                    Redaction.redact(failure));
        } else {
            LOG.log(Level.WARNING, line);
            if (LOG.isLoggable(Level.DEBUG)) {
                LOG.log(Level.DEBUG, line, Redaction.redact(failure));
            }
        }
    }

    private synchronized boolean firstOfItsKind(Throwable failure) {
        StackTraceElement[] trace = failure.getStackTrace();
        String kind = failure.getClass().getName() + (trace.length == 0 ? "" : " at " + trace[0]);
        return traced.put(kind, Boolean.TRUE) == null;
    }

    /** The failure's class and message, without passwords; never a bare "null". */
    static String describe(Throwable failure) {
        String message = failure.getMessage();
        return failure.getClass().getName() + (message == null ? "" : ": " + Redaction.redact(firstLine(message)));
    }

    private static String firstLine(String text) {
        int end = text.indexOf('\n');
        String line = end < 0 ? text : text.substring(0, end);
        return line.length() <= 500 ? line : line.substring(0, 497) + "...";
    }
}
