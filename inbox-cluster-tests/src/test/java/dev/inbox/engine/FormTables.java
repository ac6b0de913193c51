package dev.inbox.engine;

import dev.inbox.ClaimForm;
import dev.inbox.Column;
import dev.inbox.InboxSpec;

/** The queue tables of the cluster tests: an id, a payload and an attempt, and the columns of a claim form. */
final class FormTables {
    private FormTables() {}

    static InboxSpec spec(String table, ClaimForm form) {
        InboxSpec spec = InboxSpec.table(table, Column.of("id").generated()).payload(Column.of("payload"))
                .attempt(Column.of("attempt").generated());
        return switch (form) {
            case LEASE -> spec.lease(Column.of("locked_until"));
            case ADVISORY -> spec.advisoryLock(Column.of("advisory_lock")).retryAfter(Column.of("retry_after"));
            case ROW_LOCK -> spec.retryAfter(Column.of("retry_after"));
        };
    }
}
