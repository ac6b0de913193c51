package dev.inbox.engine;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.inbox.engine.form.ConnectionSource;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Where the broker takes connections: the application's DataSource, or a pool the broker built and owns. */
final class Connections implements ConnectionSource {
    private final DataSource dataSource;
    private final HikariDataSource owned;

    private Connections(DataSource dataSource, HikariDataSource owned) {
        this.dataSource = dataSource;
        this.owned = owned;
    }

    static Connections of(DataSource applications) {
        return new Connections(applications, null);
    }

    static Connections pool(HikariConfig config) {
        HikariDataSource pool = new HikariDataSource(config);
        return new Connections(pool, pool);
    }

    @Override
    public Connection open() throws SQLException {
        return dataSource.getConnection();
    }

    DataSource dataSource() {
        return dataSource;
    }

    /** The pool's size when the broker built it; 0 for the application's DataSource. */
    int poolSize() {
        return owned == null ? 0 : owned.getMaximumPoolSize();
    }

    /** Closes a pool the broker built, never the application's; returns the connections it closed. */
    int close() {
        if (owned == null) {
            return 0;
        }
        int open = owned.getHikariPoolMXBean() == null ? 0 : owned.getHikariPoolMXBean().getTotalConnections();
        owned.close();
        return open;
    }
}
