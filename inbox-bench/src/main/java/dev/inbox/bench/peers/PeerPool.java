package dev.inbox.bench.peers;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** The connection pool a peer runs on, as an application would give it one. */
final class PeerPool {
    private PeerPool() {}

    /**
     * A pool of the engine's size for the same workers ({@code 2 * workers + 4}), so no peer waits
     * for a connection the engine would have had. Every connection is opened here, before the
     * clock starts, as the engine's broker opens its pool before its drain is timed.
     */
    static HikariDataSource open(String url, int workers) throws SQLException {
        int size = 2 * workers + 4;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setPoolName("peer");
        HikariDataSource pool = new HikariDataSource(config);
        List<Connection> open = new ArrayList<>(size);
        try {
            for (int i = 0; i < size; i++) {
                open.add(pool.getConnection());
            }
        } catch (SQLException | RuntimeException e) {
            pool.close();
            throw e;
        } finally {
            for (Connection c : open) {
                c.close();
            }
        }
        return pool;
    }
}
