package dev.inbox.dialect;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Reads PostgreSQL notifications through the driver's own API. Kept apart from
 * {@link PostgresDialect} so the driver's classes load only where PostgreSQL is used.
 */
final class PgNotifications {
    private PgNotifications() {}

    static List<String> await(Connection listening, Duration timeout) throws SQLException {
        PGNotification[] notifications = listening.unwrap(PGConnection.class)
                .getNotifications((int) Math.max(1, timeout.toMillis()));
        List<String> channels = new ArrayList<>();
        if (notifications != null) {
            for (PGNotification n : notifications) {
                channels.add(n.getName());
            }
        }
        return channels;
    }
}
