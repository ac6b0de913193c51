package dev.inbox.bench.adapter;

import dev.inbox.Inbound;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The transactional case: each delivery runs in a JTA transaction, and the handler writes one row
 * through the application's JTA data source, which joins it and commits with the ack.
 */
@ApplicationScoped
public class TxDrain {
    @Resource(lookup = "jdbc/inbox")
    DataSource dataSource;

    public void handle(@Inbound(queue = "bench-tx", table = TxJob.class, transactional = true) Job job)
            throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement insert = c.prepareStatement("INSERT INTO benchra_effects (n) VALUES (?)")) {
            insert.setLong(1, job.n());
            insert.executeUpdate();
        }
    }
}
