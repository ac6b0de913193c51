package dev.inbox.engine;

import dev.inbox.Column;
import dev.inbox.InboxSpec;

/** The payload the tests publish. */
record Job(int n) {

    /** The description of a lease table as {@link TestDatabase#createLeaseTable} creates it. */
    static InboxSpec leaseTable(String table) {
        return InboxSpec.table(table, Column.of("id").generated())
                .attempt(Column.of("attempt").generated())
                .lease(Column.of("locked_until"))
                .payload(Column.of("payload"));
    }
}
