package dev.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The table of subscription options {@link SubscriptionOption} generates, defaults included (the
 * documentation's configuration reference is generated from the same declarations).
 */
class ReadmeOptionsTest {

    @Test
    void theTableHasARowPerOptionWithItsDefault() {
        String table = SubscriptionOption.readmeTable();
        assertThat(table.lines()).hasSize(SubscriptionOption.all().size() + 2);
        assertThat(table).contains("| `workers` | `workers` | 1 |", "| `lease` | `lease` | 30s | `Lease` |",
                "| `listen-notify` | `listenNotify` | false | `ListenNotify` |");
    }
}
