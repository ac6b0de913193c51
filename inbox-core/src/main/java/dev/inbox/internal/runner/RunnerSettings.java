package dev.inbox.internal.runner;

import java.time.Duration;

/**
 * A subscription's options as resolved when it opens (its own, else the broker's).
 *
 * @param prefetch        rows that may wait beside those in work; -1 for the default
 * @param maxAttempts     0 for no cap
 * @param retryBackoff    the wait after a first failed attempt; zero for none
 * @param retryBackoffMax the longest wait after a failed attempt
 * @param handlerTimeout  how long a handler may run; null for no limit
 */
public record RunnerSettings(int workers, int batchSize, int prefetch, Duration pollInterval, Duration lease, int maxAttempts,
        boolean deadLetters, boolean transactional, Duration retryBackoff, Duration retryBackoffMax,
        Duration handlerTimeout) {}
