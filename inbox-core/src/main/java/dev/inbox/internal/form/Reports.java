package dev.inbox.internal.form;

import dev.inbox.InboxException;
import dev.inbox.Outcome;

/** What became of each settlement, reported once per delivery: settled, lost to another claim, or failed. */
public interface Reports {

    /** The settlement took effect. */
    void settled(InFlight delivery, Outcome outcome);

    /**
     * The settlement did not take effect: another claim holds the row ({@code LEASE_LOST}), or
     * shutdown released it.
     */
    void lost(InFlight delivery, Outcome outcome, InboxException error);

    /** The settlement's statement failed: the row stays claimed until its claim ends, as after a crash. */
    void failed(InFlight delivery, Outcome outcome, Exception error);
}
