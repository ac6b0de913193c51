package dev.inbox.cdi;

import dev.inbox.InboxException;
import dev.inbox.InboxSpec;
import dev.inbox.RecurringJob;
import dev.inbox.engine.InboxBroker;
import jakarta.enterprise.inject.spi.AnnotatedMethod;
import jakarta.enterprise.inject.spi.Bean;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;
import java.util.function.Function;
import org.eclipse.microprofile.config.Config;

/**
 * A bean method annotated {@link Recurring}, checked at deployment; every problem names the class,
 * the method and what to change. {@link #job} makes the engine's recurring job, with what
 * MicroProfile Config overrides.
 */
final class RecurringMethod {
    /** The prefix of a job's MicroProfile Config keys: {@code inbox.recurring.<name>.cron}. */
    static final String KEY_PREFIX = "inbox.recurring.";
    static final String[] KEYS = {"cron", "zone", "enabled"};

    private final Bean<?> bean;
    private final Method method;
    private final Recurring recurring;
    private final InboxSpec table;

    private RecurringMethod(Bean<?> bean, Method method, Recurring recurring, InboxSpec table) {
        this.bean = bean;
        this.method = method;
        this.recurring = recurring;
        this.table = table;
    }

    /** The recurring job {@code annotated} declares, or null when it has no {@code @Recurring}. */
    static RecurringMethod of(Bean<?> bean, AnnotatedMethod<?> annotated) {
        Recurring recurring = annotated.getAnnotation(Recurring.class);
        if (recurring == null) {
            return null;
        }
        Method method = annotated.getJavaMember();
        if (!Modifier.isPublic(method.getModifiers()) || Modifier.isStatic(method.getModifiers())) {
            throw problem(method, "is not a public instance method: make it public so the container can call it");
        }
        if (method.getReturnType() == void.class) {
            throw problem(method, "returns nothing: return the payload each occurrence publishes into queue "
                    + recurring.queue());
        }
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length > 1 || (parameters.length == 1 && parameters[0] != Instant.class)) {
            throw problem(method, "takes " + parameters.length + " parameter(s) Inbox cannot supply: a recurring"
                    + " method takes nothing, or the occurrence's due time as a java.time.Instant");
        }
        if (recurring.name().isBlank() || recurring.name().length() > RecurringJob.MAX_NAME_LENGTH
                || recurring.name().contains(" ")) {
            throw problem(method, "is named \"" + recurring.name() + "\": give @Recurring(name) 1 to "
                    + RecurringJob.MAX_NAME_LENGTH + " characters without spaces, the same on every server");
        }
        zone(method, recurring.zone(), "@Recurring(zone)");
        InboxSpec table = null;
        if (recurring.table() != void.class) {
            try {
                table = InboxSpec.of(recurring.table());
                table.claimForm();
            } catch (InboxException e) {
                throw problem(method, "names a table it cannot use (" + e.detail() + "): set @Recurring(table = ...)"
                        + " to the @InboxTable record of queue " + recurring.queue() + "'s table");
            }
        }
        return new RecurringMethod(bean, method, recurring, table);
    }

    private static ZoneId zone(Method method, String zone, String where) {
        try {
            return ZoneId.of(zone.trim());
        } catch (DateTimeException e) {
            throw problem(method, "has " + where + " = \"" + zone + "\", which is not a zone (" + e.getMessage()
                    + "): write one such as UTC or Europe/Paris");
        }
    }

    static InboxException problem(Method method, String what) {
        return new InboxException(InboxException.Kind.DECLARATION, "recurring method "
                + method.getDeclaringClass().getName() + "." + method.getName() + " " + what);
    }

    /**
     * The engine's job, as the annotation and MicroProfile Config set it, whose payload comes from
     * {@code call} (the bean method called in the application's context).
     *
     * @throws InboxException {@code DECLARATION} naming a configuration key whose value is not usable
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    RecurringJob<?> job(Config config, Function<Instant, Object> call) {
        String prefix = KEY_PREFIX + name() + ".";
        String cron = config.getOptionalValue(prefix + "cron", String.class).orElse(recurring.cron());
        ZoneId zone = zone(method, config.getOptionalValue(prefix + "zone", String.class).orElse(recurring.zone()),
                "MicroProfile Config " + prefix + "zone (or @Recurring(zone))");
        Optional<String> enabled = config.getOptionalValue(prefix + "enabled", String.class).map(String::trim);
        if (enabled.isPresent() && !enabled.get().equalsIgnoreCase("true") && !enabled.get().equalsIgnoreCase("false")) {
            throw new InboxException(InboxException.Kind.DECLARATION, "MicroProfile Config key " + prefix + "enabled = "
                    + enabled.get() + " is neither true nor false");
        }
        Class payloadType = payloadType();
        RecurringJob<?> job = RecurringJob.of(name(), cron, queue(), payloadType, (Function) call).zone(zone)
                .enabled(enabled.map(Boolean::parseBoolean).orElse(true));
        InboxBroker.checkRecurring(job);
        return job;
    }

    private Class<?> payloadType() {
        Type type = method.getGenericReturnType();
        return type instanceof ParameterizedType p ? (Class<?>) p.getRawType() : method.getReturnType();
    }

    Bean<?> bean() {
        return bean;
    }

    Method method() {
        return method;
    }

    String name() {
        return recurring.name();
    }

    String queue() {
        return recurring.queue();
    }

    /** The table {@code @Recurring(table)} names; null where the queue's handler or publisher gives it. */
    InboxSpec table() {
        return table;
    }

    /** The method's arguments for the occurrence due at {@code due}. */
    Object[] arguments(Instant due) {
        return method.getParameterCount() == 0 ? new Object[0] : new Object[] {due};
    }

    String describe() {
        return method.getDeclaringClass().getName() + "." + method.getName();
    }
}
