package dev.inbox.bench.adapter.it;

/** The payload the engine alone decodes: the same JSON as the bench WAR's {@code Job}. */
public record Job(long n) {}
