package dev.inbox.spi;

/**
 * The statements that cancel a job of one table: remove row {@code :id} unless it is in work.
 *
 * @param find   row {@code :id}'s processed time (NULL where unprocessed or the table keeps none) and
 *               advisory lock key (NULL outside the advisory form): no row when it is not there
 * @param lock   makes sure no delivery holds row {@code :id}: the row lock form selects it
 *               {@code FOR UPDATE SKIP LOCKED} (in a transaction), the advisory form tries its key's
 *               lock ({@code :prefix} is {@code <table>:}) and returns the key; no row when a delivery
 *               holds it or it is not there. Null where no lock serves: the lease form, whose
 *               {@code delete} asks for an expired lease, and advisory locks kept in the process
 * @param delete deletes row {@code :id} (the lease form's only where no lease holds it at {@code :now})
 * @param unlock releases the advisory lock {@code :key} that {@code lock} took; null outside that form
 */
public record CancelStatements(String find, String lock, String delete, String unlock) {}
