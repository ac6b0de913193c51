package dev.inbox.sample;

/**
 * An amount to book in the ledger against an order: each refund books its amount negated. A
 * booking posted by hand may set {@code failFirst} (the ledger bean asks for a retry on its first
 * attempt) or {@code crashFirst} (it throws): either way its first write rolls back.
 */
public record Booking(long order, long amountCents, boolean failFirst, boolean crashFirst) {

    /** What a refund books. */
    static Booking of(Refund refund) {
        return new Booking(refund.order(), -refund.amountCents(), false, false);
    }
}
