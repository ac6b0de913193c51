package dev.inbox.internal.jdbc;

import java.math.BigInteger;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A row's id as the engine hands it out, read one way wherever it is read: a whole number as a
 * {@link Long}, whatever the column's width and the driver's choice (an {@code INT} column reads as
 * an Integer, MariaDB's generated keys come as BigInteger, SQLite's ids as either); other ids as the
 * driver reads them. So the id a publish returns equals the one the job's handler sees.
 */
public final class RowIds {
    private RowIds() {}

    /** Column {@code column} of the current row of {@code rs}, as an id. */
    public static Object read(ResultSet rs, int column) throws SQLException {
        return of(rs.getObject(column));
    }

    /** {@code id} with a whole number as a Long. */
    public static Object of(Object id) {
        if (id instanceof Long) {
            return id;
        }
        if (id instanceof Integer || id instanceof Short || id instanceof Byte) {
            return ((Number) id).longValue();
        }
        if (id instanceof BigInteger big && big.bitLength() < Long.SIZE) {
            return big.longValue();
        }
        return id;
    }
}
