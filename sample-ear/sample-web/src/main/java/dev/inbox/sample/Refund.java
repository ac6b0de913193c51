package dev.inbox.sample;

/** A refund of an order; {@code failFirst} makes the card processor time out on its first call. */
public record Refund(long order, long amountCents, boolean failFirst) {}
