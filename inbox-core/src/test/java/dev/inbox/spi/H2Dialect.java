package dev.inbox.spi;

import dev.inbox.ClaimForm;
import dev.inbox.InboxSpec;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;

/**
 * A dialect as a user would write one for a database the built-ins do not serve: H2, lease form
 * only, written against the SPI alone.
 */
public final class H2Dialect implements Dialect {

    @Override
    public String name() {
        return "h2";
    }

    @Override
    public boolean serves(DatabaseMetaData metaData) throws SQLException {
        return metaData.getDatabaseProductName().equals("H2");
    }

    @Override
    public Capabilities capabilities() {
        return Capabilities.of(EnumSet.of(ClaimForm.LEASE), 256);
    }

    @Override
    public String quote(String identifier) {
        return "\"" + identifier.toUpperCase() + "\"";
    }

    @Override
    public Instant stored(Instant time) {
        return time.truncatedTo(ChronoUnit.MICROS);
    }

    @Override
    public void bindTime(PreparedStatement statement, int index, Instant time) throws SQLException {
        if (time == null) {
            statement.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
            statement.setObject(index, OffsetDateTime.ofInstant(time, ZoneOffset.UTC));
        }
    }

    @Override
    public String insert(TableShape t) {
        return "INSERT INTO " + t.table() + " (" + t.name(t.spec().payload().orElseThrow()) + ", "
                + t.name(t.spec().lease().orElseThrow()) + ") VALUES (:payload, :due)";
    }

    @Override
    public LeaseStatements lease(TableShape t) {
        InboxSpec spec = t.spec();
        String lease = t.name(spec.lease().orElseThrow());
        String attempt = t.name(spec.attempt().orElseThrow());
        String owned = " WHERE " + t.id() + " = :id AND " + lease + " = :token";
        String select = "SELECT " + t.id() + ", " + attempt + ", " + t.name(spec.payload().orElseThrow()) + ", NULL FROM "
                + t.table() + " WHERE " + lease + " IS NULL OR " + lease + " <= :now ORDER BY " + t.id()
                + " LIMIT :limit FOR UPDATE";
        return new LeaseStatements(LeaseStatements.ClaimStyle.SELECT_THEN_STAMP, select,
                "UPDATE " + t.table() + " SET " + lease + " = :expiry, " + attempt + " = " + attempt + " + 1 WHERE "
                        + t.id() + " = :id",
                "UPDATE " + t.table() + " SET " + lease + " = :expiry" + owned,
                "DELETE FROM " + t.table() + owned,
                "UPDATE " + t.table() + " SET " + lease + " = :due" + owned,
                "DELETE FROM " + t.table() + owned);
    }

    @Override
    public String deadLetter(TableShape table, String deadLetterTable, boolean leased) {
        throw new UnsupportedOperationException("this dialect keeps no dead letters");
    }
}
