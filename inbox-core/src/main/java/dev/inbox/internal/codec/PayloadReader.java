package dev.inbox.internal.codec;

import java.io.IOException;

/** Decodes one payload type: resolved when a subscription opens, then called per row. */
public interface PayloadReader<T> {

    /** @throws IOException when the JSON does not decode into the type */
    T read(byte[] json) throws IOException;

    /** The payload type, as messages name it. */
    String typeName();
}
