package dev.inbox.engine;

/**
 * Runs the engine's long-lived tasks: claim loops, lease keepers and workers. Plain threads by
 * default; the resource adapter runs them as {@code Work} under the server's {@code WorkManager}.
 */
@FunctionalInterface
public interface Threads {

    /** Starts {@code task} now, on a thread of its own, until it returns. */
    void start(String name, Runnable task);

    /** Daemon platform threads named after their task. */
    static Threads platform() {
        return (name, task) -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            thread.start();
        };
    }
}
