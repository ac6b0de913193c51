package dev.inbox.sample.it.shared;

/** A note job of the applications that share the standalone adapter. */
public record Note(long job) {}
