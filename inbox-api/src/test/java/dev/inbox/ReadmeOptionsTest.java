package dev.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** README's table of subscription options lists every option declared in {@link SubscriptionOption}. */
class ReadmeOptionsTest {

    @Test
    void everyOptionIsDocumented() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        for (SubscriptionOption<?> option : SubscriptionOption.all()) {
            assertThat(readme).as("README documents the option " + option.name()).contains("| `" + option.name() + "` |");
        }
    }
}
