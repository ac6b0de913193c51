package dev.inbox.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A statement written with named parameters ({@code :id}), turned into JDBC's {@code ?} form once.
 * Quoted strings, quoted identifiers and PostgreSQL's {@code ::} casts are left alone.
 *
 * @param jdbc       the statement with {@code ?} placeholders
 * @param parameters the parameter names, in placeholder order (a name may repeat)
 */
public record NamedSql(String jdbc, List<String> parameters) {

    public static NamedSql parse(String sql) {
        List<String> names = new ArrayList<>();
        String jdbc = replace(sql, name -> {
            names.add(name);
            return "?";
        });
        return new NamedSql(jdbc, List.copyOf(names));
    }

    /**
     * {@code sql} with each named parameter ({@code :id}) replaced by {@code parameter.apply("id")},
     * in the statement's order; quoted strings and identifiers and {@code ::} casts are left alone.
     */
    public static String replace(String sql, UnaryOperator<String> parameter) {
        StringBuilder out = new StringBuilder(sql.length());
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"' || c == '`') {
                int end = sql.indexOf(c, i + 1);
                end = end < 0 ? sql.length() : end + 1;
                out.append(sql, i, end);
                i = end;
            } else if (c == ':' && i + 1 < sql.length() && sql.charAt(i + 1) == ':') {
                out.append("::");
                i += 2;
            } else if (c == ':' && i + 1 < sql.length() && Character.isJavaIdentifierStart(sql.charAt(i + 1))) {
                int end = i + 1;
                while (end < sql.length() && Character.isJavaIdentifierPart(sql.charAt(end))) {
                    end++;
                }
                out.append(parameter.apply(sql.substring(i + 1, end)));
                i = end;
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    /** The 1-based placeholder positions of {@code name}; empty when the statement does not use it. */
    public int[] positions(String name) {
        return java.util.stream.IntStream.range(0, parameters.size())
                .filter(i -> parameters.get(i).equals(name)).map(i -> i + 1).toArray();
    }
}
