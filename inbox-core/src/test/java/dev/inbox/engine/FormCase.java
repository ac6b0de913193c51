package dev.inbox.engine;

import dev.inbox.ClaimForm;
import java.util.Arrays;
import java.util.stream.Stream;

/** A claim form on a database that serves it: the pairs every form test runs on. */
record FormCase(ClaimForm form, TestDatabase db) {

    /** Every form on every database that serves it. */
    static Stream<FormCase> all() {
        return Arrays.stream(ClaimForm.values())
                .flatMap(form -> Arrays.stream(TestDatabase.values()).map(db -> new FormCase(form, db)))
                .filter(FormCase::served);
    }

    private boolean served() {
        return db.dialect().capabilities().forms().contains(form);
    }

    @Override
    public String toString() {
        return form + " on " + db;
    }
}
