package dev.inbox.engine;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A clock a test sets by hand: the engine reads it where it reads the host's. */
final class SettableClock extends Clock {
    private final AtomicReference<Instant> now;

    SettableClock(String start) {
        this.now = new AtomicReference<>(Instant.parse(start));
    }

    void set(String time) {
        now.set(Instant.parse(time));
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
        return now.get();
    }
}
