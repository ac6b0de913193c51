package dev.inbox.internal.codec;

import java.util.List;

/** Encodes one publisher's payloads as UTF-8 JSON. */
public interface PayloadWriter {

    /** @throws dev.inbox.InboxException {@code DECLARATION} when the payload cannot be written */
    byte[] write(Object payload);

    /** Each payload's JSON, in order; for a batch, which a codec may write in one pass. */
    List<byte[]> writeAll(Iterable<?> payloads);
}
