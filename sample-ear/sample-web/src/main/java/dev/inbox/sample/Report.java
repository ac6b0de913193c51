package dev.inbox.sample;

/** A report to render. */
public record Report(String name) {}
