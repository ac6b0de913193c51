package dev.inbox;

/**
 * What a broker's shutdown released and closed.
 *
 * @param rowsReleased       claimed rows given back to their queue at once (claimed but not yet
 *                           handled, or whose handler was cut off at the drain timeout)
 * @param locksReleased      advisory locks released for deliveries in work, their sessions given back to the pool
 * @param handlersCutOff     handlers still running at the drain timeout, whose deliveries were dropped
 * @param connectionsClosed  sessions closed instead of given back, so that the locks they held ended with
 *                           them (their release failed); a pool the broker built is closed too, uncounted
 */
public record ShutdownReport(int rowsReleased, int locksReleased, int handlersCutOff, int connectionsClosed) {

    /** Nothing released, nothing closed. */
    public static final ShutdownReport NONE = new ShutdownReport(0, 0, 0, 0);

    /** This report and {@code other} added up: what two parts of a broker released together. */
    public ShutdownReport plus(ShutdownReport other) {
        return new ShutdownReport(rowsReleased + other.rowsReleased, locksReleased + other.locksReleased,
                handlersCutOff + other.handlersCutOff, connectionsClosed + other.connectionsClosed);
    }
}
