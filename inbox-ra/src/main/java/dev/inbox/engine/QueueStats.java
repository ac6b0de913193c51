package dev.inbox.engine;

/**
 * What one queue holds, as a broker sees it: rows waiting, rows this broker has in work, and rows
 * in its dead-letter table.
 *
 * @param ready  unfinished rows that no delivery of this broker holds (due now or later, or held elsewhere)
 * @param inWork deliveries of this broker claimed and not yet settled
 * @param dead   rows of the queue's dead-letter table; 0 when it declares none
 */
public record QueueStats(long ready, long inWork, long dead) {}
