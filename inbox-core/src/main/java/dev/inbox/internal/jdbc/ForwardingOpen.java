package dev.inbox.internal.jdbc;

import dev.inbox.spi.DeliveryTransactions;
import java.sql.Connection;

/** A delivery transaction that passes everything to another; subclasses change what they must. */
public class ForwardingOpen implements DeliveryTransactions.Open {
    private final DeliveryTransactions.Open open;

    public ForwardingOpen(DeliveryTransactions.Open open) {
        this.open = open;
    }

    @Override
    public Connection connection() {
        return open.connection();
    }

    @Override
    public void commit() throws Exception {
        open.commit();
    }

    @Override
    public void rollback() throws Exception {
        open.rollback();
    }

    @Override
    public void close() {
        open.close();
    }

    @Override
    public boolean locksDatabase() {
        return open.locksDatabase();
    }
}
