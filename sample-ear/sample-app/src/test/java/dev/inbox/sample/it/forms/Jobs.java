package dev.inbox.sample.it.forms;

import java.util.List;
import java.util.stream.LongStream;

/** The jobs a publish request asks for. */
public final class Jobs {
    private Jobs() {}

    public static List<Entry> range(long from, int count, String mode) {
        return LongStream.range(from, from + count).mapToObj(job -> new Entry(job, mode)).toList();
    }
}
