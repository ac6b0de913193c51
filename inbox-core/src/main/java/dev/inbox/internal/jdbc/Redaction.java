package dev.inbox.internal.jdbc;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.regex.Pattern;

/** Removes passwords from JDBC URLs and driver messages before they reach a log line or an error. */
public final class Redaction {
    /** The longest message a logged exception keeps; a driver may put a whole statement in one. */
    static final int MAX_MESSAGE = 2000;

    private static final Pattern PASSWORD_PARAMETER =
            Pattern.compile("((?:password|pwd|passwd)\\s*=\\s*)[^&;,)\\s]*", Pattern.CASE_INSENSITIVE);
    private static final Pattern USER_INFO = Pattern.compile("(//[^/:@?]*:)[^@/]*@");

    private Redaction() {}

    /** {@code text} with every password in it replaced by {@code ***}. */
    public static String redact(String text) {
        if (text == null) {
            return null;
        }
        String out = PASSWORD_PARAMETER.matcher(text).replaceAll("$1***");
        return USER_INFO.matcher(out).replaceAll("$1***@");
    }

    /** {@code text} with {@code secret} also replaced, when a secret was given separately. */
    public static String redact(String text, String secret) {
        String out = redact(text);
        return secret == null || secret.isEmpty() || out == null ? out : out.replace(secret, "***");
    }

    /**
     * A copy of {@code failure} to log: the same classes, stack traces, causes and suppressed
     * exceptions, with every message free of passwords and at most {@value #MAX_MESSAGE}
     * characters. A driver's exception can hold the URL with its password, and a logger prints the
     * whole chain.
     */
    public static Throwable redact(Throwable failure) {
        return failure == null ? null : copy(failure, Collections.newSetFromMap(new IdentityHashMap<>()));
    }

    private static Throwable copy(Throwable failure, Set<Throwable> seen) {
        seen.add(failure);
        Redacted copy = new Redacted(failure);
        Throwable cause = failure.getCause();
        if (cause != null && !seen.contains(cause)) {
            copy.initCause(copy(cause, seen));
        }
        for (Throwable suppressed : failure.getSuppressed()) {
            if (!seen.contains(suppressed)) {
                copy.addSuppressed(copy(suppressed, seen));
            }
        }
        return copy;
    }

    private static String capped(String message) {
        return message == null || message.length() <= MAX_MESSAGE ? message
                : message.substring(0, MAX_MESSAGE - 3) + "...";
    }

    /** An exception as it is logged: its original class's name, its message redacted, its trace. */
    private static final class Redacted extends Exception {
        private static final long serialVersionUID = 1L;
        private final String className;

        Redacted(Throwable original) {
            super(capped(redact(original.getMessage())));
            this.className = original.getClass().getName();
            setStackTrace(original.getStackTrace());
        }

        @Override
        public String toString() {
            String message = getMessage();
            return message == null ? className : className + ": " + message;
        }
    }
}
