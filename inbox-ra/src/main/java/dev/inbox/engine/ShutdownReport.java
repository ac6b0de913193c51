package dev.inbox.engine;

/**
 * What a broker's shutdown released and closed.
 *
 * @param rowsReleased       claimed rows given back to their queue at once (claimed but not yet
 *                           handled, or whose handler was cut off at the drain timeout)
 * @param locksReleased      advisory locks released for deliveries in work
 * @param handlersCutOff     handlers still running at the drain timeout, whose deliveries were dropped
 * @param connectionsClosed  connections of a pool the broker built, closed; zero for an application's DataSource
 */
public record ShutdownReport(int rowsReleased, int locksReleased, int handlersCutOff, int connectionsClosed) {}
