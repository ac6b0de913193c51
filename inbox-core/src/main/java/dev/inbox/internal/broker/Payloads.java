package dev.inbox.internal.broker;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.deser.AbstractDeserializer;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBase;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.inbox.InboxException.Kind;
import dev.inbox.InboxException;
import java.lang.reflect.Type;

/**
 * What publishers accept is what subscribers can read: a payload type Jackson can construct, and
 * a document no larger than the JSON reader (and the payload column) takes. Checked when a
 * subscription opens or a publisher is made, and at each publish for the size.
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
     * Fails unless Jackson can build values of {@code type} from JSON: an abstract type, or a
     * class without a constructor Jackson can use, would be published and then never read.
     *
     * @throws InboxException {@code DECLARATION} naming the queue, the type and what to change
     */
    public static void requireDecodable(ObjectMapper json, Type type, String queue) {
        JavaType javaType = json.constructType(type);
        DeserializationContext context = ((DefaultDeserializationContext) json.getDeserializationContext())
                .createInstance(json.getDeserializationConfig(), null, null);
        JsonDeserializer<Object> deserializer;
        try {
            deserializer = context.findRootValueDeserializer(javaType);
        } catch (JsonMappingException e) {
            throw undecodable(queue, javaType, e.getOriginalMessage());
        }
        if (deserializer instanceof AbstractDeserializer) {
            throw undecodable(queue, javaType, "it is abstract, and Inbox decodes payloads without type information");
        }
        if (deserializer instanceof BeanDeserializerBase bean && !bean.getValueInstantiator().canInstantiate()) {
            throw undecodable(queue, javaType, "it has no constructor Jackson can use (a record, a no-argument"
                    + " constructor or a @JsonCreator)");
        }
    }

    private static InboxException undecodable(String queue, JavaType type, String why) {
        return new InboxException(Kind.DECLARATION, "queue " + queue + ": payloads of type " + type.toCanonical()
                + " could be published but never decoded, since " + why + ": use a type Jackson can construct");
    }

    /**
     * The largest payload, in bytes of JSON, that the subscribers' reader decodes: no longer than
     * its longest string or document, nor than the payload column holds ({@code columnLimit}, 0
     * where the database sets none).
     */
    static Limit limit(ObjectMapper json, long columnLimit, String column) {
        StreamReadConstraints constraints = json.getFactory().streamReadConstraints();
        long reader = constraints.getMaxStringLength();
        if (constraints.getMaxDocumentLength() > 0) {
            reader = Math.min(reader, constraints.getMaxDocumentLength());
        }
        if (columnLimit > 0 && columnLimit < reader) {
            return new Limit(columnLimit, "the payload column " + column + " holds");
        }
        return new Limit(reader, "the JSON mapper's StreamReadConstraints let a subscriber read");
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
