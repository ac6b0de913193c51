package dev.inbox;

/**
 * What a publish of one job did, and the job's id: the row written, or for a duplicate the row
 * that already held the job's unique key or id.
 *
 * <p>A whole-number id is a {@link Long}, the value {@link Delivery#id()} gives the job's handler
 * and {@link InboxAdmin#cancel} takes; other ids (text, a UUID) are as the JDBC driver reads them.
 *
 * @param isNew true when the job was inserted; false for a duplicate, which inserted nothing and
 *              left the caller's transaction unharmed
 * @param id    the job's id; null only for a duplicate whose holder the database could not name
 *              (it was settled between the insert and the look-up)
 */
public record Published(boolean isNew, Object id) {

    /** A job inserted as row {@code id}. */
    public static Published inserted(Object id) {
        return new Published(true, id);
    }

    /** A job not inserted: row {@code id} (null where unknown) already holds its unique key or id. */
    public static Published duplicate(Object id) {
        return new Published(false, id);
    }

    /** True when nothing was inserted. */
    public boolean isDuplicate() {
        return !isNew;
    }
}
