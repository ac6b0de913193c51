package dev.inbox.internal.jdbc;

import java.util.regex.Pattern;

/** Removes passwords from JDBC URLs and driver messages before they reach a log line or an error. */
public final class Redaction {
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
}
