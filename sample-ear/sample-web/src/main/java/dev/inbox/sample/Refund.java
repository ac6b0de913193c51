package dev.inbox.sample;

/**
 * A refund of an order. {@code failFirst} makes the card processor time out on its first call
 * (the handler retries); {@code crashFirst} makes it fail with an exception (the handler throws).
 */
public record Refund(long order, long amountCents, boolean failFirst, boolean crashFirst) {}
