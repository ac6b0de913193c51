package dev.inbox.cdi;

import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The queues the application's injected publishers name, and where each one's table comes from:
 * the queue's handler method, or {@code @Queue(table = ...)} for a queue handled elsewhere (a
 * message-driven bean, another application on the database). Every problem names the injection
 * point and what to change, so the deployment fails instead of the first publish.
 */
final class PublisherRoutes {
    /** A table a publisher declared, and where. */
    private record Declared(InboxSpec table, String where) {}

    private final Map<String, Declared> declared = new LinkedHashMap<>();
    /** Queues published to without a table, and the first place that does it. */
    private final Map<String, String> undeclared = new LinkedHashMap<>();
    private final List<String> problems = new ArrayList<>();

    /** A publisher of {@code queue} injected at {@code where}, naming {@code table} ({@code void.class}: none). */
    void add(String queue, Class<?> table, String where) {
        if (table == void.class) {
            undeclared.putIfAbsent(queue, where);
            return;
        }
        InboxSpec spec;
        try {
            spec = InboxSpec.of(table);
            spec.claimForm();
        } catch (InboxException e) {
            problems.add("the publisher of queue " + queue + " injected into " + where + " names a table it cannot use ("
                    + e.detail() + "): set @Queue(table = ...) to the @InboxTable record of the queue's table");
            return;
        }
        Declared other = declared.putIfAbsent(queue, new Declared(spec, where));
        if (other != null && !other.table().equals(spec)) {
            problems.add("queue " + queue + " is published to table " + other.table().table() + " by " + other.where()
                    + " and to table " + spec.table() + " by " + where + ": a queue has one table, name the same"
                    + " @InboxTable record in both");
        }
    }

    /** Every problem, given the application's handler methods by queue. */
    List<String> problems(Map<String, HandlerMethod> handlers) {
        List<String> all = new ArrayList<>(problems);
        declared.forEach((queue, route) -> {
            HandlerMethod handler = handlers.get(queue);
            if (handler != null && !handler.table().equals(route.table())) {
                all.add("the publisher of queue " + queue + " injected into " + route.where() + " names table "
                        + route.table().table() + ", but the queue's handler " + handler.describe() + " takes it from"
                        + " table " + handler.table().table() + ": leave table out of @Queue, or name the same record");
            }
        });
        undeclared.forEach((queue, where) -> {
            if (!handlers.containsKey(queue) && !declared.containsKey(queue)) {
                all.add("the publisher of queue " + queue + " injected into " + where + " publishes to a queue no"
                        + " handler method of this application takes, so Inbox does not know its table: name it,"
                        + " @Queue(value = \"" + queue + "\", table = YourJobTable.class), or check the queue's name");
            }
        });
        return all;
    }

    /** The tables publishers named, by queue. */
    Map<String, InboxSpec> tables() {
        Map<String, InboxSpec> tables = new LinkedHashMap<>();
        declared.forEach((queue, route) -> tables.put(queue, route.table()));
        return Collections.unmodifiableMap(tables);
    }
}
