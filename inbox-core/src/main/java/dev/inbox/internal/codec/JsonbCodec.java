package dev.inbox.internal.codec;

import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbException;
import jakarta.json.bind.annotation.JsonbCreator;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Payloads through the application's JSON-B. JSON-B reads no type information, so only a type it
 * can construct is accepted; it sets no document limit of its own, so the payload column's
 * capacity is the only limit.
 */
public record JsonbCodec(Jsonb jsonb) implements PayloadCodec {

    public JsonbCodec {
        Objects.requireNonNull(jsonb, "jsonb");
    }

    @Override
    public <T> PayloadReader<T> reader(Type type, String queue) {
        requireConstructible(type, queue);
        String name = type.getTypeName();
        return new PayloadReader<>() {
            @Override
            public T read(byte[] bytes) throws IOException {
                try {
                    return jsonb.fromJson(new ByteArrayInputStream(bytes), type);
                } catch (JsonbException e) {
                    throw new IOException(e.getMessage(), e);
                }
            }

            @Override
            public String typeName() {
                return name;
            }
        };
    }

    private static void requireConstructible(Type type, String queue) {
        Class<?> raw = type instanceof ParameterizedType p ? (Class<?>) p.getRawType()
                : type instanceof Class<?> c ? c : null;
        if (raw == null) {
            throw Unwritable.undecodable(queue, type.getTypeName(), "it is not a class", "JSON-B");
        }
        if (raw.isPrimitive() || raw.isEnum() || raw.isArray() || raw.isRecord()
                || Collection.class.isAssignableFrom(raw) || Map.class.isAssignableFrom(raw)
                || raw.getName().startsWith("java.")) {
            return; // JSON-B's own types (and records, with Yasson 3)
        }
        if (raw.isInterface() || Modifier.isAbstract(raw.getModifiers())) {
            throw Unwritable.undecodable(queue, type.getTypeName(),
                    "it is abstract, and Inbox decodes payloads without type information", "JSON-B");
        }
        if (raw.getEnclosingClass() != null && !Modifier.isStatic(raw.getModifiers())) {
            throw Unwritable.undecodable(queue, type.getTypeName(), "it is an inner class", "JSON-B");
        }
        for (Constructor<?> constructor : raw.getDeclaredConstructors()) {
            if (constructor.isAnnotationPresent(JsonbCreator.class)
                    || constructor.getParameterCount() == 0 && !Modifier.isPrivate(constructor.getModifiers())) {
                return;
            }
        }
        for (Method method : raw.getDeclaredMethods()) {
            if (Modifier.isStatic(method.getModifiers()) && method.isAnnotationPresent(JsonbCreator.class)) {
                return;
            }
        }
        throw Unwritable.undecodable(queue, type.getTypeName(), "it has no constructor JSON-B can use (a record,"
                + " a public or protected no-argument constructor, or a @JsonbCreator)", "JSON-B");
    }

    @Override
    public <T> PayloadWriter writer(Class<T> type, String queue) {
        return new PayloadWriter() {
            @Override
            public byte[] write(Object payload) {
                ByteArrayOutputStream out = new ByteArrayOutputStream(128);
                try {
                    jsonb.toJson(payload, type, out);
                } catch (JsonbException e) {
                    throw Unwritable.payload(queue, payload, e.getMessage(), e);
                }
                return out.toByteArray();
            }

            @Override
            public List<byte[]> writeAll(Iterable<?> payloads) {
                List<byte[]> encoded = new ArrayList<>();
                for (Object payload : payloads) {
                    encoded.add(write(payload));
                }
                return encoded;
            }
        };
    }

    @Override
    public long readLimit() {
        return Long.MAX_VALUE;
    }

    @Override
    public String readLimitSource() {
        return "JSON-B reads";
    }
}
