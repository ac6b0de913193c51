package dev.inbox.internal.codec;

import dev.inbox.InboxException;

final class Unwritable {
    private Unwritable() {}

    static InboxException payload(String queue, Object payload, String why, Throwable cause) {
        return new InboxException(InboxException.Kind.DECLARATION, "queue " + queue + ": the payload "
                + (payload == null ? "null" : payload.getClass().getName()) + " cannot be written as JSON: " + why,
                cause);
    }

    static InboxException undecodable(String queue, String type, String why, String library) {
        return new InboxException(InboxException.Kind.DECLARATION, "queue " + queue + ": payloads of type " + type
                + " could be published but never decoded, since " + why + ": use a type " + library
                + " can construct");
    }
}
