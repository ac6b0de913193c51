package dev.inbox.cdi;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.engine.InboxBroker;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.json.bind.Jsonb;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The application's {@link InboxJson} mapper of payloads, found among its beans as they are
 * discovered: at most one, an {@code ObjectMapper} or a {@code Jsonb}.
 */
final class PayloadJson {
    private final List<Bean<?>> mappers = new ArrayList<>();
    private final List<Bean<?>> jsonbs = new ArrayList<>();

    /** Notes {@code bean} if it is an {@code @InboxJson} mapper. */
    void see(Bean<?> bean) {
        if (bean.getQualifiers().stream().noneMatch(InboxJson.class::isInstance)) {
            return;
        }
        if (bean.getTypes().contains(ObjectMapper.class)) {
            mappers.add(bean);
        }
        if (bean.getTypes().contains(Jsonb.class)) {
            jsonbs.add(bean);
        }
    }

    /** The problem of more than one mapper, which Inbox could not choose between. */
    Optional<ConfigurationProblem> problem() {
        if (mappers.size() + jsonbs.size() <= 1) {
            return Optional.empty();
        }
        List<String> found = new ArrayList<>();
        mappers.forEach(bean -> found.add("ObjectMapper from " + describe(bean)));
        jsonbs.forEach(bean -> found.add("Jsonb from " + describe(bean)));
        return Optional.of(new ConfigurationProblem("the application produces " + found.size() + " @InboxJson"
                + " mappers of its payloads (" + String.join(", ", found) + "), and Inbox uses one: keep a single"
                + " @Produces @InboxJson ObjectMapper or Jsonb"));
    }

    /** What hands the application's mapper to its broker; null where it produces none. */
    Consumer<InboxBroker> codec(BeanManager beans) {
        if (!mappers.isEmpty()) {
            return broker -> broker.json(beans.createInstance().select(ObjectMapper.class, InboxJson.Literal.INSTANCE)
                    .get());
        }
        if (!jsonbs.isEmpty()) {
            return broker -> broker.jsonb(beans.createInstance().select(Jsonb.class, InboxJson.Literal.INSTANCE).get());
        }
        return null;
    }

    private static String describe(Bean<?> bean) {
        return bean.getBeanClass().getName();
    }
}
