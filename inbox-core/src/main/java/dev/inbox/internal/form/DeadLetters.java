package dev.inbox.internal.form;

import dev.inbox.internal.jdbc.Sql;
import dev.inbox.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;

/** Moves a row into its dead-letter table, keeping payload, headers, attempt, the error text and the last error. */
public final class DeadLetters {
    /** The longest error text a move writes: a message and the head of its cause. */
    public static final int MAX_ERROR = 2000;

    private DeadLetters() {}

    /**
     * Copies the delivery's row into the dead-letter table and deletes it, on the caller's
     * connection and transaction (guarded by the token in the lease form); true when both
     * statements found the row.
     */
    public static boolean move(Connection connection, Sql deadLetter, Sql drop, InFlight delivery, String error,
            String lastError, Instant now, Dialect dialect) throws SQLException {
        int copied;
        try (PreparedStatement ps = deadLetter.prepare(connection)) {
            deadLetter.set(ps, "id", delivery.id());
            deadLetter.setTime(ps, "token", delivery.token(), dialect);
            deadLetter.setInt(ps, "attempt", delivery.attempt());
            deadLetter.setString(ps, "error", clip(error));
            deadLetter.setString(ps, "lastError", lastError); // no place where the queue keeps no last error
            deadLetter.setTime(ps, "failed", dialect.stored(now), dialect);
            copied = ps.executeUpdate();
        }
        try (PreparedStatement ps = drop.prepare(connection)) {
            drop.set(ps, "id", delivery.id());
            drop.setTime(ps, "token", delivery.token(), dialect);
            return ps.executeUpdate() == 1 && copied == 1;
        }
    }

    static String clip(String error) {
        String text = error == null ? "" : error;
        return text.length() <= MAX_ERROR ? text : text.substring(0, MAX_ERROR - 3) + "...";
    }
}
