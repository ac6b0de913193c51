package dev.inbox.dialect;

import dev.inbox.ClaimForm;
import dev.inbox.Column;
import dev.inbox.spi.LeaseStatements;
import dev.inbox.spi.RowLockStatements;
import dev.inbox.spi.TableShape;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import java.util.Set;

/** PostgreSQL: a lease claim is one statement that locks due rows with SKIP LOCKED, leases and returns them. */
public final class PostgresDialect extends StandardDialect {

    public PostgresDialect() {
        super('"');
    }

    @Override
    public String name() {
        return "postgresql";
    }

    @Override
    public boolean serves(DatabaseMetaData metaData) throws SQLException {
        return metaData.getDatabaseProductName().equalsIgnoreCase("PostgreSQL");
    }

    @Override
    public Set<ClaimForm> forms() {
        return EnumSet.of(ClaimForm.LEASE, ClaimForm.ROW_LOCK);
    }

    @Override
    public int maxIdentifierLength() {
        return 63;
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
    protected LeaseStatements leaseClaim(TableShape t, String extend, String ack, String retry, String drop) {
        // The CTE runs its locking select once, so a claim never leases more than :limit rows.
        String claim = "WITH due AS (SELECT " + t.id() + " FROM " + t.table() + " WHERE " + leaseDue(t)
                + " ORDER BY " + claimOrder(t) + " LIMIT :limit FOR UPDATE SKIP LOCKED)"
                + " UPDATE " + t.table() + " AS q SET " + leaseStamp(t) + " FROM due WHERE q." + t.id() + " = due."
                + t.id() + " RETURNING " + claimResult(t, "q.", true);
        return new LeaseStatements(LeaseStatements.ClaimStyle.RETURNING, claim, null, extend, ack, retry, drop);
    }

    @Override
    public RowLockStatements rowLock(TableShape t) {
        String select = "SELECT " + t.id() + " FROM " + t.table() + " WHERE " + due(t) + " ORDER BY " + claimOrder(t)
                + " LIMIT :limit FOR UPDATE SKIP LOCKED";
        String claim = t.name(t.spec().attempt())
                .map(a -> "WITH due AS (" + select + ") UPDATE " + t.table() + " AS q SET " + a + " = " + a + " + 1"
                        + " FROM due WHERE q." + t.id() + " = due." + t.id() + " RETURNING " + claimResult(t, "q.", true))
                .orElse("SELECT " + claimResult(t, "", false) + " FROM " + t.table() + " WHERE " + due(t)
                        + " ORDER BY " + claimOrder(t) + " LIMIT :limit FOR UPDATE SKIP LOCKED");
        return rowLockSettlements(t, LeaseStatements.ClaimStyle.RETURNING, claim, null);
    }

    @Override
    protected String headersAsText() {
        return "::text";
    }

    @Override
    protected String jsonParameter(TableShape t, Column column, String parameter) {
        String type = t.typeName(column);
        return type.equals("json") || type.equals("jsonb") ? "CAST(" + parameter + " AS " + type + ")" : parameter;
    }
}
