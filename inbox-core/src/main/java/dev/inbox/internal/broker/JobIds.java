package dev.inbox.internal.broker;

import dev.inbox.InboxException;
import dev.inbox.spi.TableShape;
import java.math.BigInteger;

/**
 * A job id an operator gives (to cancel a job, retry or delete a dead letter), in the kind the
 * table's id column holds, before it reaches SQL. Given as text to a column of whole numbers, each
 * database answered its own way: PostgreSQL with an error, MariaDB by reading {@code 'abc'} as 0,
 * SQLite by comparing text with numbers.
 */
final class JobIds {
    private JobIds() {}

    /**
     * {@code id} as a {@code Long} where the table's ids are whole numbers; else as given.
     *
     * @throws InboxException {@code DECLARATION} for an id that is not a whole number a long holds
     */
    static Object of(TableShape table, Object id) {
        String type = table.typeName(table.spec().id());
        if (!type.contains("int") && !type.contains("serial")) {
            return id;
        }
        if (id instanceof Long || id instanceof Integer || id instanceof Short || id instanceof Byte) {
            return ((Number) id).longValue();
        }
        String text = String.valueOf(id).trim();
        try {
            return id instanceof BigInteger big ? big.longValueExact() : Long.valueOf(text);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new InboxException(InboxException.Kind.DECLARATION, "job id '" + text + "' is not a whole number"
                    + " from " + Long.MIN_VALUE + " to " + Long.MAX_VALUE + ", and table " + table.spec().table()
                    + "'s ids are (" + type + "): give one of its ids");
        }
    }
}
