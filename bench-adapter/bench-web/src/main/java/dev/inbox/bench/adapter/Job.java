package dev.inbox.bench.adapter;

/** The payload of every benchmark row: {@code {"n": 17}}. */
public record Job(long n) {}
