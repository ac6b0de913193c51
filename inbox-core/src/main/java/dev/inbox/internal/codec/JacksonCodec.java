package dev.inbox.internal.codec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SequenceWriter;
import com.fasterxml.jackson.databind.deser.AbstractDeserializer;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBase;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Payloads through the application's (or Inbox's default) Jackson mapper, without default typing. */
public final class JacksonCodec implements PayloadCodec {
    private final ObjectMapper json;

    public JacksonCodec(ObjectMapper json) {
        this.json = Objects.requireNonNull(json, "mapper");
    }

    @Override
    public <T> PayloadReader<T> reader(Type type, String queue) {
        JavaType javaType = json.constructType(type);
        requireDecodable(javaType, queue);
        ObjectReader reader = json.readerFor(javaType);
        String name = javaType.toCanonical();
        return new PayloadReader<>() {
            @Override
            public T read(byte[] bytes) throws IOException {
                return reader.readValue(bytes);
            }

            @Override
            public String typeName() {
                return name;
            }
        };
    }

    // An abstract type, or a class without a constructor Jackson can use, would be published and then never read.
    private void requireDecodable(JavaType javaType, String queue) {
        DeserializationContext context = ((DefaultDeserializationContext) json.getDeserializationContext())
                .createInstance(json.getDeserializationConfig(), null, null);
        JsonDeserializer<Object> deserializer;
        try {
            deserializer = context.findRootValueDeserializer(javaType);
        } catch (JsonMappingException e) {
            throw Unwritable.undecodable(queue, javaType.toCanonical(), e.getOriginalMessage(), "Jackson");
        }
        if (deserializer instanceof AbstractDeserializer) {
            throw Unwritable.undecodable(queue, javaType.toCanonical(),
                    "it is abstract, and Inbox decodes payloads without type information", "Jackson");
        }
        if (deserializer instanceof BeanDeserializerBase bean && !bean.getValueInstantiator().canInstantiate()) {
            throw Unwritable.undecodable(queue, javaType.toCanonical(), "it has no constructor Jackson can use (a"
                    + " record, a no-argument constructor or a @JsonCreator)", "Jackson");
        }
    }

    @Override
    public <T> PayloadWriter writer(Class<T> type, String queue) {
        ObjectWriter writer = json.writerFor(type);
        // The payloads of a batch, one after another with nothing between them.
        ObjectWriter values = writer.withRootValueSeparator("");
        return new PayloadWriter() {
            @Override
            public byte[] write(Object payload) {
                try {
                    return writer.writeValueAsBytes(payload);
                } catch (JsonProcessingException e) {
                    throw Unwritable.payload(queue, payload, e.getOriginalMessage(), e);
                }
            }

            @Override
            public List<byte[]> writeAll(Iterable<?> payloads) {
                // One generator for the batch, each value taken from its buffer once written: making a
                // generator and a serializer provider per value cost more than the insert itself.
                List<byte[]> encoded = new ArrayList<>();
                ByteArrayOutputStream buffer = new ByteArrayOutputStream(128);
                Object payload = null;
                try (SequenceWriter sequence = values.writeValues(buffer)) {
                    for (Object next : payloads) {
                        payload = next;
                        sequence.write(payload);
                        sequence.flush();
                        encoded.add(buffer.toByteArray());
                        buffer.reset();
                    }
                } catch (JsonProcessingException e) {
                    throw Unwritable.payload(queue, payload, e.getOriginalMessage(), e);
                } catch (IOException e) {
                    throw new UncheckedIOException(e); // not from a byte array
                }
                return encoded;
            }
        };
    }

    @Override
    public long readLimit() {
        StreamReadConstraints constraints = json.getFactory().streamReadConstraints();
        long reader = constraints.getMaxStringLength();
        if (constraints.getMaxDocumentLength() > 0) {
            reader = Math.min(reader, constraints.getMaxDocumentLength());
        }
        return reader;
    }

    @Override
    public String readLimitSource() {
        return "the JSON mapper's StreamReadConstraints let a subscriber read";
    }
}
