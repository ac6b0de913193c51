package dev.inbox.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Clock;
import java.util.concurrent.Executor;

/**
 * What a broker's subscriptions and publishers share once it has opened: its database, clock and
 * JSON mapper, who hears what happens, where deliveries run, how transactional deliveries begin,
 * and how queues wake. Each part of the engine takes the few it uses from here; none knows the
 * broker.
 */
record EngineContext(Database database, Clock clock, ObjectMapper json, BrokerListener listener,
        Executor handlerContext, DeliveryTransactions transactions, Wakes wakes) {}
