package dev.inbox.sample.it.forms;

import dev.inbox.Delivery;
import dev.inbox.Outcome;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * What every handler of the forms application does: writes the job's effect through the injected
 * JTA data source (not the delivery's connection), then ends as the job's mode says. The effect
 * commits only with the delivery's ack.
 */
@ApplicationScoped
public class Effects {

    @Resource(lookup = "jdbc/inbox")
    DataSource dataSource;

    public Outcome record(String form, Entry entry, Delivery delivery) throws Exception {
        try (Connection connection = dataSource.getConnection(); PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO it_effects (form, job, attempt) VALUES (?, ?, ?)")) {
            insert.setString(1, form);
            insert.setLong(2, entry.job());
            insert.setInt(3, delivery.attempt());
            insert.executeUpdate();
        }
        boolean first = delivery.attempt() == 1;
        switch (entry.mode()) {
            case "retry-once":
                return first ? Outcome.retry(Duration.ofMillis(200)) : Outcome.ack();
            case "throw-once":
                if (first) {
                    throw new IllegalStateException("job " + entry.job() + " fails once after writing its effect");
                }
                return Outcome.ack();
            case "slow":
                Thread.sleep(20);
                return Outcome.ack();
            default:
                return Outcome.ack();
        }
    }
}
