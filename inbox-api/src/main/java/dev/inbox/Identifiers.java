package dev.inbox;

import java.util.regex.Pattern;

/**
 * Checks table and column names before they reach SQL. A name is letters, digits, {@code _} and
 * {@code $}, not starting with a digit; a table may carry one schema qualifier. Each dialect
 * checks the length limit of its database and quotes the name.
 */
public final class Identifiers {
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]*");

    private Identifiers() {}

    /** Throws {@link InboxException.Kind#DECLARATION} unless {@code name} is a plain identifier. */
    public static String check(String name, String what) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new InboxException(InboxException.Kind.DECLARATION,
                    "the " + what + " name " + show(name) + " is not a plain identifier: use letters, digits"
                            + " and '_' (not starting with a digit), without quotes, spaces or semicolons");
        }
        return name;
    }

    /** Checks a table name, which may be {@code schema.table}. */
    public static String checkTable(String name) {
        if (name != null) {
            int dot = name.indexOf('.');
            if (dot > 0 && dot == name.lastIndexOf('.')) {
                check(name.substring(0, dot), "schema");
                check(name.substring(dot + 1), "table");
                return name;
            }
        }
        return check(name, "table");
    }

    private static String show(String name) {
        if (name == null) {
            return "(none)";
        }
        return name.length() > 80 ? "'" + name.substring(0, 80) + "...'" : "'" + name + "'";
    }
}
