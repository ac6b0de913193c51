package dev.inbox.sample;

import jakarta.json.bind.annotation.JsonbPropertyOrder;

/** An amount of an order, as {@code GET /refunds} and {@code GET /ledger} list them. */
@JsonbPropertyOrder({"order", "amountCents"})
public record OrderAmount(long order, long amountCents) {}
