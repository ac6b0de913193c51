package dev.inbox.internal.jdbc;

import dev.inbox.spi.Dialect;
import dev.inbox.spi.NamedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * One statement of a table, parsed once: its name for messages, its text, and where each named
 * parameter goes. Engine-internal; public for the claim forms.
 */
public final class Sql {
    private static final int[] NONE = new int[0];

    private final String name;
    private final String text;
    private final NamedSql parsed;
    private final Map<String, int[]> positions = new HashMap<>();

    public Sql(String name, String text) {
        this.name = name;
        this.text = text;
        this.parsed = NamedSql.parse(text);
        for (String parameter : parsed.parameters()) {
            positions.computeIfAbsent(parameter, parsed::positions);
        }
    }

    public String name() {
        return name;
    }

    /** The statement as the dialect wrote it, with named parameters. */
    public String text() {
        return text;
    }

    public String jdbc() {
        return parsed.jdbc();
    }

    public PreparedStatement prepare(Connection connection) throws SQLException {
        return connection.prepareStatement(parsed.jdbc());
    }

    /**
     * Prepares an insert whose rows' {@code idColumn} (filled by the database) the driver hands back
     * as generated keys, or whose own {@code RETURNING} clause returns them.
     */
    public PreparedStatement prepareReturning(Connection connection, String idColumn) throws SQLException {
        return connection.prepareStatement(parsed.jdbc(), new String[] {idColumn});
    }

    public boolean uses(String parameter) {
        return positions.containsKey(parameter);
    }

    public void set(PreparedStatement statement, String parameter, Object value) throws SQLException {
        for (int i : positions.getOrDefault(parameter, NONE)) {
            statement.setObject(i, value);
        }
    }

    public void setInt(PreparedStatement statement, String parameter, int value) throws SQLException {
        for (int i : positions.getOrDefault(parameter, NONE)) {
            statement.setInt(i, value);
        }
    }

    public void setBytes(PreparedStatement statement, String parameter, byte[] value) throws SQLException {
        for (int i : positions.getOrDefault(parameter, NONE)) {
            statement.setBytes(i, value);
        }
    }

    /** Binds the {@code occurrence}th place (from 0) of {@code parameter}: one row of a multi-row statement. */
    public void setBytes(PreparedStatement statement, String parameter, int occurrence, byte[] value)
            throws SQLException {
        statement.setBytes(positions.get(parameter)[occurrence], value);
    }

    /** Binds the {@code occurrence}th place (from 0) of {@code parameter}: one row of a multi-row statement. */
    public void setString(PreparedStatement statement, String parameter, int occurrence, String value)
            throws SQLException {
        statement.setString(positions.get(parameter)[occurrence], value);
    }

    /** Binds a list of rows ({@link Dialect#bindRows}): their ids, and their tokens unless null. */
    public void setRows(PreparedStatement statement, String parameter, Object[] ids, Instant[] tokens, Dialect dialect)
            throws SQLException {
        for (int i : positions.getOrDefault(parameter, NONE)) {
            dialect.bindRows(statement, i, ids, tokens);
        }
    }

    /** Binds {@code values} as one array of text (SQL {@code varchar}). */
    public void setTexts(PreparedStatement statement, String parameter, String[] values) throws SQLException {
        for (int i : positions.getOrDefault(parameter, NONE)) {
            statement.setArray(i, statement.getConnection().createArrayOf("varchar", values));
        }
    }

    public void setString(PreparedStatement statement, String parameter, String value) throws SQLException {
        for (int i : positions.getOrDefault(parameter, NONE)) {
            statement.setString(i, value);
        }
    }

    public void setTime(PreparedStatement statement, String parameter, Instant time, Dialect dialect) throws SQLException {
        for (int i : positions.getOrDefault(parameter, NONE)) {
            dialect.bindTime(statement, i, time);
        }
    }

    @Override
    public String toString() {
        return name + ": " + text;
    }

    /**
     * Moves {@code ps}, a chain of statements sent together ({@code claimCarryingAcks},
     * {@code acksCommitAndClaim}), past the update counts of what commits or begins between two
     * of its results, to the next result set; {@code what} names that result for the error where
     * none comes.
     */
    public static void toNextResultSet(PreparedStatement ps, String what) throws SQLException {
        while (!ps.getMoreResults()) {
            if (ps.getUpdateCount() == -1) {
                throw new SQLException(what + " returned no result");
            }
        }
    }
}
