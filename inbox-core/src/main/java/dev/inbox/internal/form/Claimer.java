package dev.inbox.internal.form;

import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/** Claims due rows: a claim form's claim, its statements chosen when it opened. */
@FunctionalInterface
public interface Claimer {

    /** Claims up to {@code limit} rows due at {@code now}, in claim order (higher priority first, then id). */
    List<InFlight> claim(Instant now, int limit) throws SQLException;
}
