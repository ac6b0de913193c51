package dev.inbox.sample;

import dev.inbox.Inbound;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.SQLException;
import javax.sql.DataSource;

/** The mailer: "mails" each receipt once the refund that sent it has committed. */
@ApplicationScoped
public class Receipts {
    @Inject
    DataSource dataSource;

    public void mail(@Inbound(queue = "receipts", table = SendReceipt.class) Receipt receipt) throws SQLException {
        Rows.insertCommitted(dataSource, "INSERT INTO receipts_mailed (order_id) VALUES (?)", receipt.order());
    }
}
