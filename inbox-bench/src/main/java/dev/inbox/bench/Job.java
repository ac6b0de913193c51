package dev.inbox.bench;

import java.nio.charset.StandardCharsets;

/** The payload of every benchmark job: its number. */
public record Job(int n) {

    /** The JSON the engine's publisher writes for job {@code n}, for the plain JDBC inserts. */
    static byte[] json(int n) {
        return ("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8);
    }
}
