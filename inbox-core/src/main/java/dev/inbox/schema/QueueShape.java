package dev.inbox.schema;

import dev.inbox.Id;
import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.Payload;
import dev.inbox.schema.SchemaDatabase.IdKind;
import java.lang.reflect.RecordComponent;
import java.util.UUID;

/**
 * A queue table's description with the Java types the DDL needs and the description does not
 * hold: the id's (a number, a UUID or text) and the payload's (bytes or text).
 */
record QueueShape(InboxSpec spec, IdKind id, boolean textPayload) {

    /** The shape of a hand-written description: a numeric id and a payload of bytes. */
    static QueueShape of(InboxSpec spec) {
        return new QueueShape(spec, IdKind.BIGINT, false);
    }

    /** The shape an {@link dev.inbox.InboxTable} record declares, its components' types included. */
    static QueueShape of(Class<?> tableRecord) {
        InboxSpec spec = InboxSpec.of(tableRecord);
        IdKind id = IdKind.BIGINT;
        boolean textPayload = false;
        for (RecordComponent c : tableRecord.getRecordComponents()) {
            if (c.isAnnotationPresent(Id.class)) {
                id = idKind(tableRecord, c);
            } else if (c.isAnnotationPresent(Payload.class)) {
                textPayload = c.getType() == String.class;
            }
        }
        return new QueueShape(spec, id, textPayload);
    }

    private static IdKind idKind(Class<?> tableRecord, RecordComponent c) {
        Class<?> type = c.getType();
        if (type == long.class || type == Long.class) {
            return IdKind.BIGINT;
        }
        if (type == int.class || type == Integer.class || type == short.class || type == Short.class) {
            return IdKind.INTEGER;
        }
        if (type == UUID.class) {
            return IdKind.UUID;
        }
        if (type == String.class) {
            return IdKind.TEXT;
        }
        throw new InboxException(InboxException.Kind.DECLARATION, tableRecord.getName() + "." + c.getName()
                + " is an id of type " + type.getSimpleName() + ", for which Inbox writes no column:"
                + " use long, int, UUID or String");
    }

    String table() {
        return spec.table();
    }
}
