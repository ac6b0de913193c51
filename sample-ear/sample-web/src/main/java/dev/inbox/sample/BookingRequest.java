package dev.inbox.sample;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import java.math.BigInteger;

/** What {@code POST /ledger} takes, checked before anything is queued; numbers are read whole. */
public record BookingRequest(
        @NotNull @Positive @Max(RefundRequest.LARGEST) BigInteger order,
        @NotNull @Min(-RefundRequest.LARGEST_AMOUNT) @Max(RefundRequest.LARGEST_AMOUNT) BigInteger amountCents,
        boolean failFirst,
        boolean crashFirst) {

    /** The booking to queue. */
    public Booking booking() {
        return new Booking(order.longValueExact(), amountCents.longValueExact(), failFirst, crashFirst);
    }
}
