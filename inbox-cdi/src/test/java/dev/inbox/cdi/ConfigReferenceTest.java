package dev.inbox.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.SubscriptionOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The documented keys are the keys the extension reads: none missing, none it does not read. */
class ConfigReferenceTest {

    @Test
    void everyKeyTheExtensionReadsIsDocumentedAndNoOther() {
        List<String> documented = new ArrayList<>();
        for (ConfigReference.Key key : ConfigReference.keys()) {
            documented.add(key.key().replace("<name>", "nightly"));
            assertThat(key.description()).as(key.key()).isNotBlank();
            assertThat(key.defaultValue()).as(key.key()).isNotBlank();
        }
        for (SubscriptionOption<?> option : SubscriptionOption.all()) {
            documented.add(option.globalKey());
            documented.add(option.queueKey("refunds"));
        }
        assertThat(documented).containsExactlyInAnyOrderElementsOf(ConfigKeys.known(Set.of("refunds"), Set.of("nightly")));
    }
}
