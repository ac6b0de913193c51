package dev.inbox.bench.adapter;

import dev.inbox.Inbound;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The lease case: a handler that does nothing, so the drain measures the adapter's path (Work
 * threads, the application's context, the CDI call, the lease claim and ack). Workers and batch
 * size come from MicroProfile Config ({@code inbox.queue.bench-lease.workers}, ...).
 */
@ApplicationScoped
public class LeaseDrain {
    public void handle(@Inbound(queue = "bench-lease", table = LeaseJob.class) Job job) {
        // no work: the benchmark measures what surrounds the handler
    }
}
