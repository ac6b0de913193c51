package dev.inbox.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code inbox.console.path}: a plain path of the web module, never one that climbs out of it. */
class ConsolePathTest {

    @ParameterizedTest
    @ValueSource(strings = {"/inbox", " /admin/queues ", "/ops/v1.2/inbox", "/.well", "/a..b"})
    void aPlainPathIsTaken(String path) {
        assertThat(Console.path(path)).isEqualTo(path.trim());
    }

    /** Before, the pattern took "/.." and "/admin/../x", its segments being made of the allowed characters. */
    @ParameterizedTest
    @ValueSource(strings = {"/..", "/admin/../x", "/.", "/inbox/.", "inbox", "/", "/in box", "/inbox/", "//inbox"})
    void aPathThatIsNotPlainIsRefusedNamingTheKey(String path) {
        assertThatThrownBy(() -> Console.path(path)).isInstanceOf(ConfigurationProblem.class)
                .hasMessageContaining("inbox.console.path").hasMessageContaining("none of them . or ..");
    }
}
