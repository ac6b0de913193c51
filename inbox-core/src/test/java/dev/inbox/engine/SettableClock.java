package dev.inbox.engine;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock a test sets by hand: the engine reads it where it reads the host's. Either it stands
 * where it was set, or it {@link #running runs} with the host's clock and is stepped by hand, as a
 * host's clock is when someone or NTP sets it.
 */
final class SettableClock extends Clock {
    private final AtomicReference<Instant> now;
    /** How far a running clock is from the host's; null for one that stands. */
    private final AtomicReference<Duration> offset;

    SettableClock(String start) {
        this.now = new AtomicReference<>(Instant.parse(start));
        this.offset = null;
    }

    private SettableClock() {
        this.now = null;
        this.offset = new AtomicReference<>(Duration.ZERO);
    }

    /** A clock on the host's time until {@link #step stepped}. */
    static SettableClock running() {
        return new SettableClock();
    }

    void set(String time) {
        now.set(Instant.parse(time));
    }

    /** Sets a running clock {@code by} forward (or back, negative) from where it is. */
    void step(Duration by) {
        offset.accumulateAndGet(by, Duration::plus);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return offset == null ? now.get() : Instant.now().plus(offset.get());
    }
}
