package dev.inbox.sample.it.forms;

/**
 * One job of the forms application: {@code mode} says what its handler does after writing its
 * effect ({@code ack}, {@code retry-once}, {@code throw-once}, or {@code slow}: ack after 20 ms).
 */
public record Entry(long job, String mode) {}
