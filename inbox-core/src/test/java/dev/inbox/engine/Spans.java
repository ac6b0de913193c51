package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/** When each delivery of each row started and ended, to prove no row was ever in two deliveries at once. */
final class Spans {
    record Span(int job, long start, long end, String where) {}

    private final Queue<Span> spans = new ConcurrentLinkedQueue<>();

    /** Records a delivery of {@code job} by {@code where} that ran from {@code start} until now. */
    void record(int job, long start, String where) {
        spans.add(new Span(job, start, System.nanoTime(), where));
    }

    int size() {
        return spans.size();
    }

    /** Every job of {@code 0..jobs-1} delivered exactly once, and no two deliveries of a job overlap. */
    void assertEachHandledOnceWithoutOverlap(int jobs) {
        Map<Integer, List<Span>> byJob = byJob();
        assertThat(byJob.keySet()).hasSize(jobs);
        assertThat(byJob.keySet()).allMatch(job -> job >= 0 && job < jobs);
        assertNoOverlap(byJob);
        List<Integer> twice = byJob.entrySet().stream().filter(e -> e.getValue().size() > 1).map(Map.Entry::getKey)
                .toList();
        assertThat(twice).as("jobs delivered more than once").isEmpty();
    }

    /** No two deliveries of one job overlap in time. */
    void assertNoOverlap() {
        assertNoOverlap(byJob());
    }

    private Map<Integer, List<Span>> byJob() {
        Map<Integer, List<Span>> byJob = new TreeMap<>();
        for (Span span : spans) {
            byJob.computeIfAbsent(span.job(), j -> new ArrayList<>()).add(span);
        }
        return byJob;
    }

    private static void assertNoOverlap(Map<Integer, List<Span>> byJob) {
        for (List<Span> list : byJob.values()) {
            list.sort(Comparator.comparingLong(Span::start));
            for (int i = 1; i < list.size(); i++) {
                assertThat(list.get(i).start()).as("job %d delivered twice at once: %s", list.get(i).job(), list)
                        .isGreaterThanOrEqualTo(list.get(i - 1).end());
            }
        }
    }
}
