package dev.inbox.internal.runner;

import dev.inbox.internal.jdbc.Database;
import dev.inbox.spi.BrokerListener;
import dev.inbox.spi.DeliveryTransactions;
import dev.inbox.spi.JobTracing;
import java.time.Clock;
import java.util.concurrent.Executor;

/**
 * What a broker's subscriptions and publishers share once it has opened: its database and clock,
 * who hears what happens, where deliveries run, how transactional deliveries begin, how
 * queues wake, and how deliveries are traced. Each part of the engine takes the few it uses from here; none knows the
 * broker.
 */
public record EngineContext(Database database, Clock clock, BrokerListener listener, Executor handlerContext,
        DeliveryTransactions transactions, Wakes wakes, JobTracing tracing) {}
