package dev.inbox.internal.codec;

import java.lang.reflect.Type;

/**
 * How an application's payloads become JSON and back: chosen once when the broker is built
 * (Jackson by default, or the application's JSON-B), then only asked for a reader per
 * subscription and a writer per publisher. Headers are Inbox's own format and stay on Jackson.
 */
public interface PayloadCodec {

    /**
     * The reader of a subscription's or publisher's payload type, checked to be decodable.
     *
     * @throws dev.inbox.InboxException {@code DECLARATION} naming the queue, the type and what to change
     */
    <T> PayloadReader<T> reader(Type type, String queue);

    /** The writer of a publisher's payloads. */
    <T> PayloadWriter writer(Class<T> type, String queue);

    /** The longest document, in bytes, the reader decodes; {@link Long#MAX_VALUE} where it sets none. */
    long readLimit();

    /** What sets {@link #readLimit()}, for the message of a payload too large. */
    String readLimitSource();
}
