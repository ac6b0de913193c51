package dev.inbox.internal.form;

import dev.inbox.internal.jdbc.Sql;
import dev.inbox.internal.task.Service;
import java.util.List;
import java.util.Objects;

/**
 * Everything a subscription's runner needs of its claim form, decided once when the form opens;
 * the runner then only calls it.
 *
 * @param claimer       the claim
 * @param rowsPerClaim  the most rows one claim takes
 * @param claimsAtOnce  how many claims may hold rows at once: each keeps a connection until its rows
 *                      settle, or {@link Integer#MAX_VALUE} where a claim holds nothing once it returned
 * @param dispatch      how claimed rows reach the workers
 * @param carry         what waits for the next claim to carry it: told when the subscription goes
 *                      quiet, stopped once the deliveries in work are done
 * @param beside        what runs beside the workers (the lease keeper, the lock sessions in work),
 *                      stopped once the claims have
 * @param connections   the connections the subscription may hold at once
 * @param statements    every statement, prepared on the server when the subscription opens
 */
public record FormPlan(Claimer claimer, int rowsPerClaim, int claimsAtOnce, Dispatch dispatch, Carry<?> carry,
        List<Service> beside, Connections connections, List<Sql> statements) {

    public FormPlan {
        beside = List.copyOf(beside);
        statements = statements.stream().filter(Objects::nonNull).toList();
    }

    /**
     * The connections a subscription may hold at once: one per claim loop running, and those held
     * beside them (settlements, lock sessions, the keeper or the ack writer); and of those, how many
     * it may hold while each waits for one more ({@code heldWaiting}: an advisory lock session whose
     * transactional delivery opens a transaction of its own). A pool no larger than the latter can
     * be held whole by connections that wait for another, and then nothing moves.
     */
    public record Connections(int perClaimLoop, int beside, int heldWaiting) {
        public Connections(int perClaimLoop, int beside) {
            this(perClaimLoop, beside, 0);
        }

        public int with(int claimLoops) {
            return perClaimLoop * claimLoops + beside;
        }
    }
}
