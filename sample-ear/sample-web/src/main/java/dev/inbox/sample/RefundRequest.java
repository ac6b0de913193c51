package dev.inbox.sample;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import java.math.BigInteger;

/**
 * What {@code POST /refunds} takes, checked with Jakarta Validation before anything is queued.
 * The numbers are read whole, so one too large for a {@code long} is refused rather than cut.
 */
public record RefundRequest(
        @NotNull @Positive @Max(RefundRequest.LARGEST) BigInteger order,
        @NotNull @Positive @Max(RefundRequest.LARGEST_AMOUNT) BigInteger amountCents,
        boolean failFirst,
        boolean crashFirst) {

    /** The largest order number the sample takes. */
    public static final long LARGEST = 999_999_999_999L;
    /** The largest refund, in cents: a million. */
    public static final long LARGEST_AMOUNT = 100_000_000L;

    /** The refund to queue. */
    public Refund refund() {
        return new Refund(order.longValueExact(), amountCents.longValueExact(), failFirst, crashFirst);
    }
}
