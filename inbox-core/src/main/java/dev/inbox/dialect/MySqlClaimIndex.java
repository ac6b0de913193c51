package dev.inbox.dialect;

import dev.inbox.ClaimForm;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The index a MySQL or MariaDB claim in priority order reads through. InnoDB locks each row a
 * {@code FOR UPDATE} reads; where the server must sort the rows to find the first ones (no index
 * in the order, or an optimizer that prefers a scan of a small table) it reads and keeps locked
 * every ready row, so one open row lock claim leaves every other claim nothing until it commits.
 * Read through an index in the order, a claim stops at its limit and locks what it returns. The
 * claim names the index ({@code FORCE INDEX}), since on a table of a few rows the optimizer
 * would sort.
 */
final class MySqlClaimIndex {
    private static final String INDEXES = "SELECT INDEX_NAME, COLUMN_NAME, COLLATION FROM INFORMATION_SCHEMA.STATISTICS"
            + " WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? ORDER BY INDEX_NAME, SEQ_IN_INDEX";

    private static final Pattern MAJOR_MINOR = Pattern.compile("(\\d+)\\.(\\d+)");

    private MySqlClaimIndex() {}

    /**
     * The index of {@code table} whose first columns are {@code (priority DESC, id)}, where its
     * claims in {@code form} lock rows and go by priority.
     *
     * @throws InboxException {@code SCHEMA} where they need one and the table has none
     */
    static Optional<String> find(Connection connection, InboxSpec table, ClaimForm form) throws SQLException {
        if (form == ClaimForm.ADVISORY || table.priority().isEmpty()) {
            return Optional.empty();
        }
        String name = table.table();
        int dot = name.indexOf('.');
        String schema = dot > 0 ? name.substring(0, dot) : null;
        String bare = name.substring(dot + 1);
        Map<String, List<String>> indexes = new LinkedHashMap<>();
        try (PreparedStatement ps = connection.prepareStatement(INDEXES)) {
            ps.setString(1, schema);
            ps.setString(2, bare);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    indexes.computeIfAbsent(rs.getString(1), i -> new ArrayList<>())
                            .add(key(rs.getString(2), "D".equals(rs.getString(3))));
                }
            }
        }
        String priority = table.priority().orElseThrow().name();
        List<String> order = List.of(key(priority, true), key(table.id().name(), false));
        for (Map.Entry<String, List<String>> index : indexes.entrySet()) {
            List<String> keys = index.getValue();
            if (keys.size() >= 2 && keys.subList(0, 2).equals(order)) {
                return Optional.of(index.getKey());
            }
        }
        throw new InboxException(InboxException.Kind.SCHEMA, "table " + name + " orders its " + form + " claims by "
                + priority + ", and has no index in that order, without which InnoDB locks every ready row a claim"
                + " reads until the claim's transaction ends, leaving other claims none: create one, as in"
                + " CREATE INDEX " + bare + "_claim ON " + name + " (" + priority + " DESC, " + table.id().name() + ")"
                + olderMariaDb(connection));
    }

    /** MariaDB builds an index declared descending in ascending order before 10.8. */
    private static String olderMariaDb(Connection connection) throws SQLException {
        String version = connection.getMetaData().getDatabaseProductVersion().toLowerCase(Locale.ROOT);
        Matcher m = MAJOR_MINOR.matcher(version);
        if (version.contains("mariadb") && m.find()) {
            int major = Integer.parseInt(m.group(1));
            int minor = Integer.parseInt(m.group(2));
            if (major == 10 && minor < 8) {
                return " (MariaDB keeps an index in descending order from 10.8; on " + major + "." + minor
                        + " upgrade the server, or describe the table without a priority column)";
            }
        }
        return "";
    }

    private static String key(String column, boolean descending) {
        return column.toLowerCase(Locale.ROOT) + (descending ? " desc" : "");
    }
}
