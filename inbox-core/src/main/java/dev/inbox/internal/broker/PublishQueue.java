package dev.inbox.internal.broker;

import dev.inbox.internal.jdbc.Database;
import dev.inbox.internal.runner.Wakes;
import dev.inbox.spi.BrokerListener;
import dev.inbox.spi.JobTracing;
import java.time.Clock;

/**
 * What a publisher of one queue works with once its broker has opened: the queue's table (its
 * insert prepared at open), the database, the clock for delays, how the queue wakes, whether an
 * insert notifies other processes, the largest payload its subscribers can read, who hears of
 * each publish, how each publish is traced, and how many seconds its insert may wait for a lock (the statement's query timeout).
 */
record PublishQueue(String queue, OpenedTable table, Database database, Clock clock, Wakes wakes, boolean notifies,
        Payloads.Limit limit, BrokerListener listener, int timeoutSeconds, JobTracing tracing) {}
