package dev.inbox.internal.form;

import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * A claim that carries what waits in a {@link Carry} in its own round trip, and the plain claim
 * where nothing waits: the one way every form's claims carry settlements. A carried claim that
 * fails before it spent its load gives the load back, which is then written apart.
 *
 * @param <L> what a claim carries
 */
public final class CarryingClaimer<L> implements Claimer {

    /** A claim that carries {@code load}; it spends the load (writes or reports it) once the load may have taken effect. */
    @FunctionalInterface
    public interface Carried<L> {
        List<InFlight> claim(L load, Instant now, int limit) throws SQLException;
    }

    private final Carry<L> carry;
    private final Claimer plain;
    private final Carried<L> carried;

    public CarryingClaimer(Carry<L> carry, Claimer plain, Carried<L> carried) {
        this.carry = carry;
        this.plain = plain;
        this.carried = carried;
    }

    @Override
    public List<InFlight> claim(Instant now, int limit) throws SQLException {
        L load = carry.take();
        if (load == null) {
            return plain.claim(now, limit);
        }
        try {
            return carried.claim(load, now, limit);
        } catch (SQLException | RuntimeException e) {
            carry.notCarried(load, e);
            throw e;
        }
    }
}
