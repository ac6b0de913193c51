package dev.inbox.internal.runner;

import dev.inbox.Outcome;
import dev.inbox.internal.jdbc.Redaction;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * What a failed attempt writes into its table's last error column: the exception's class, message
 * and first stack frames, its causes' likewise, or the reason the handler gave its retry, without
 * passwords and cut to the column's length. Chosen once as the subscription opens; a table without
 * the column gets {@link #NONE}, which writes and formats nothing.
 *
 * <pre>{@code
 * java.lang.IllegalStateException: card processor answered 503
 * 	at com.example.Refunds.refund(Refunds.java:42)
 * 	... 12 more
 * Caused by: java.net.SocketTimeoutException: Read timed out
 * 	at java.base/sun.nio.ch.NioSocketImpl.timedRead(NioSocketImpl.java:278)
 * 	... 20 more
 * }</pre>
 */
public class LastErrors {
    /** The most characters written, where the column holds more (or its length cannot be read). */
    public static final int LONGEST = 2000;
    /** The fewest characters a last error column may hold: a class and the head of its message. */
    public static final int SHORTEST = 100;
    /** The frames kept of each exception of a chain. */
    static final int FRAMES = 5;
    /** The exceptions of a chain kept: the failure and its causes. */
    static final int CHAIN = 4;
    /** The text of a plain retry, which says nothing more. */
    static final String ASKED = "the handler asked for a retry";

    /** A table without a last error column. */
    public static final LastErrors NONE = new LastErrors(0) {
        @Override
        String of(Throwable failure, Outcome outcome) {
            return null;
        }
    };

    private final int length;

    private LastErrors(int length) {
        this.length = length;
    }

    /** The last errors of a table whose column holds {@code length} characters; {@link #NONE} for 0. */
    public static LastErrors of(int length) {
        return length == 0 ? NONE : new LastErrors(length);
    }

    /**
     * The text of an attempt that threw {@code failure} (or null) and settles with {@code outcome}:
     * the failure's, else the reason of a retry; null where nothing failed (an ack, a drop the handler
     * chose), which writes nothing.
     */
    String of(Throwable failure, Outcome outcome) {
        if (failure != null) {
            return cut(describe(failure));
        }
        if (outcome.kind() != Outcome.Kind.RETRY) {
            return null;
        }
        return outcome.reason() == null ? ASKED : cut(Redaction.redact(outcome.reason()));
    }

    /** {@code failure} and its causes as {@link Throwable#printStackTrace()} prints them, shortened and redacted. */
    private String describe(Throwable failure) {
        StringBuilder text = new StringBuilder(256);
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Throwable current = failure;
        for (int i = 0; current != null && i < CHAIN && seen.add(current) && text.length() < length; i++) {
            if (i > 0) {
                text.append("\nCaused by: ");
            }
            String message = current.getMessage();
            text.append(current.getClass().getName()).append(message == null ? "" : ": " + Redaction.redact(message));
            StackTraceElement[] frames = current.getStackTrace();
            for (int f = 0; f < Math.min(FRAMES, frames.length); f++) {
                text.append("\n\tat ").append(frames[f]);
            }
            if (frames.length > FRAMES) {
                text.append("\n\t... ").append(frames.length - FRAMES).append(" more");
            }
            current = current.getCause();
        }
        return text.toString();
    }

    private String cut(String text) {
        if (text.length() <= length) {
            return text;
        }
        int end = length - 3;
        if (Character.isHighSurrogate(text.charAt(end - 1))) {
            end--; // a pair of surrogates stays whole
        }
        return text.substring(0, end) + "...";
    }
}
