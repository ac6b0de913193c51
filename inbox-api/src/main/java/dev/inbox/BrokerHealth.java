package dev.inbox;

import java.util.List;

/**
 * How a broker is doing, for health checks ({@code InboxBroker.health()}).
 *
 * @param running  connected and not shut down
 * @param queues   each subscription's health, by queue name
 * @param listener what is wrong with the LISTEN/NOTIFY connection where the broker listens; empty when
 *                 it listens or does not use one
 */
public record BrokerHealth(boolean running, List<QueueHealth> queues, String listener) {

    /** A broker not connected yet, or shut down: nothing runs. */
    public static BrokerHealth notRunning() {
        return new BrokerHealth(false, List.of(), "");
    }

    /** Running, every subscription ready, and listening where it should. */
    public boolean ready() {
        return running && listener.isEmpty() && queues.stream().allMatch(QueueHealth::ready);
    }

    /** No claim loop stuck (a broker not running has none). */
    public boolean live() {
        return queues.stream().allMatch(QueueHealth::live);
    }
}
