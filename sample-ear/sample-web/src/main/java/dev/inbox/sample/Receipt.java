package dev.inbox.sample;

/** The receipt of a refunded order, for the mailer. */
public record Receipt(long order) {}
