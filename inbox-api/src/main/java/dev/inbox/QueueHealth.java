package dev.inbox;

/**
 * How one subscription of a broker is doing, for health checks.
 *
 * @param queue   the queue
 * @param ready   false while its claims (or its lease keeper) fail: the database is out of reach,
 *                its table gone, ...
 * @param live    false while a claim loop is stuck: a claim running, a loop waiting for a thread, or
 *                the poll late, for longer than the broker's {@code stuckAfter}
 * @param paused  true while an operator has the queue paused: claims wait, which is neither down nor stuck
 * @param problem what is wrong, naming the queue or its table and the reason; empty when ready and live
 */
public record QueueHealth(String queue, boolean ready, boolean live, boolean paused, String problem) {}
