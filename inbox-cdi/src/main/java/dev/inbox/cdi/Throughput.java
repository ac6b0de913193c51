package dev.inbox.cdi;

import dev.inbox.spi.BrokerListener;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Deliveries ended per minute, per queue, over the last hour: what the console draws as each
 * queue's sparkline. Kept in memory by the server that handled them.
 */
final class Throughput implements BrokerListener {
    static final int MINUTES = 60;

    private final Clock clock;
    private final Map<String, Series> queues = new ConcurrentHashMap<>();

    Throughput(Clock clock) {
        this.clock = clock;
    }

    @Override
    public void finished(String queue, Result result) {
        queues.computeIfAbsent(queue, q -> new Series()).add(minute());
    }

    /** Deliveries ended in each of the last {@value #MINUTES} minutes, the oldest first, this minute last. */
    long[] perMinute(String queue) {
        Series series = queues.get(queue);
        return series == null ? new long[MINUTES] : series.last(minute());
    }

    private long minute() {
        return clock.millis() / 60_000;
    }

    /** A ring of per-minute counts; a slot is reset when its minute comes round again. */
    private static final class Series {
        private final long[] counts = new long[MINUTES];
        private final long[] minutes = new long[MINUTES];

        synchronized void add(long minute) {
            int slot = (int) (minute % MINUTES);
            if (minutes[slot] != minute) {
                minutes[slot] = minute;
                counts[slot] = 0;
            }
            counts[slot]++;
        }

        synchronized long[] last(long now) {
            long[] out = new long[MINUTES];
            for (int i = 0; i < MINUTES; i++) {
                long minute = now - (MINUTES - 1) + i;
                int slot = (int) (minute % MINUTES);
                out[i] = minutes[slot] == minute ? counts[slot] : 0;
            }
            return out;
        }
    }
}
