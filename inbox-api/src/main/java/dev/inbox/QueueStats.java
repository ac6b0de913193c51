package dev.inbox;

import java.time.Duration;

/**
 * What one queue holds, as a broker sees it. The counts of rows come from the queue's tables and
 * so cover every server sharing them; {@code inWork} is this broker's own.
 *
 * @param ready       rows due now that no delivery of this broker holds (in the row lock and
 *                    advisory forms also rows that another server has in work: a count does not see
 *                    their locks)
 * @param inWork      deliveries of this broker claimed and not yet settled
 * @param scheduled   unfinished rows not due yet: published with a delay, or waiting out a retry's
 *                    back-off (in the lease form also rows that another server's lease holds)
 * @param dead        rows of the queue's dead-letter table; 0 when it declares none
 * @param oldestReady how long ago the oldest ready row was published; zero when none is ready, null
 *                    when the table has no {@link dev.inbox.PublishedAt published_at} column
 */
public record QueueStats(long ready, long inWork, long scheduled, long dead, Duration oldestReady) {}
