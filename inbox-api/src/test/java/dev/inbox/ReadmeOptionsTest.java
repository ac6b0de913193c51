package dev.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** README's table of subscription options is the one {@link SubscriptionOption} generates, defaults included. */
class ReadmeOptionsTest {

    @Test
    void readmeShowsTheTableTheDeclarationsGenerate() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md")).replace("\r\n", "\n");
        String table = SubscriptionOption.readmeTable();
        assertThat(readme).as("README.md's option table; replace it with SubscriptionOption.readmeTable():%n%s", table)
                .contains(table);
    }

    @Test
    void theTableHasARowPerOptionWithItsDefault() {
        String table = SubscriptionOption.readmeTable();
        assertThat(table.lines()).hasSize(SubscriptionOption.all().size() + 2);
        assertThat(table).contains("| `workers` | `workers` | 1 |", "| `lease` | `lease` | 30s | `Lease` |",
                "| `listen-notify` | `listenNotify` | false | `ListenNotify` |");
    }
}
