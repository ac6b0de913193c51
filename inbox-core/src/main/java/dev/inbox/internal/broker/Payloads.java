package dev.inbox.internal.broker;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.inbox.InboxException.Kind;
import dev.inbox.InboxException;
import dev.inbox.internal.codec.PayloadCodec;

/**
 * What publishers accept is what subscribers can read: a document no larger than the codec's
 * reader (and the payload column) takes, checked at each publish. The payload type is checked by
 * the codec ({@link PayloadCodec#reader}) when a subscription opens or a publisher is made.
 */
public final class Payloads {
    private Payloads() {}

    /** Jackson with java.time support and no default typing: the mapper of payloads and headers by default. */
    public static ObjectMapper defaultJson() {
        return JsonMapper.builder()
                .addModule(new JavaTimeModule())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .build();
    }

    /**
     * The largest payload, in bytes of JSON, that the subscribers' reader decodes: no longer than
     * its longest string or document, nor than the payload column holds ({@code columnLimit}, 0
     * where the database sets none).
     */
    static Limit limit(PayloadCodec codec, long columnLimit, String column) {
        long reader = codec.readLimit();
        if (columnLimit > 0 && columnLimit < reader) {
            return new Limit(columnLimit, "the payload column " + column + " holds");
        }
        return new Limit(reader, codec.readLimitSource());
    }

    /** The largest payload a queue takes, and what sets it. */
    record Limit(long bytes, String source) {

        /** @throws InboxException {@code DECLARATION} naming the queue, the size and the limit */
        void check(String queue, long size) {
            if (size > bytes) {
                throw new InboxException(Kind.DECLARATION, "queue " + queue + ": the payload is " + size
                        + " bytes of JSON, more than the " + bytes + " bytes " + source + ", so it could never be"
                        + " handled: publish a smaller payload (a reference to the data, say)");
            }
        }
    }
}
