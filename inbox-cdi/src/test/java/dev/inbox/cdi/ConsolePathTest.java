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

    /** {@code inbox.console.payload-limit}: a number of characters, else a refusal naming the key. */
    @ParameterizedTest
    @ValueSource(strings = {"0", "-5", "lots", "100000001", "1.5"})
    void aPayloadLimitThatIsNoCountOfCharactersIsRefusedNamingTheKey(String value) {
        assertThatThrownBy(() -> InboxExtension.payloadLimit(new MapConfig(java.util.Map.of(
                ConfigKeys.CONSOLE_PAYLOAD_LIMIT, value)))).isInstanceOf(dev.inbox.InboxException.class)
                .hasMessageContaining("inbox.console.payload-limit = '" + value + "' is not a number of characters");
        assertThat(InboxExtension.payloadLimit(new MapConfig(java.util.Map.of(ConfigKeys.CONSOLE_PAYLOAD_LIMIT,
                " 2_000 ")))).isEqualTo(2000);
        assertThat(InboxExtension.payloadLimit(new MapConfig(java.util.Map.of()))).isEqualTo(1_000_000);
    }

    /** Before, MicroProfile's Boolean converter read "flase" or "no" as false and left the console out unsaid. */
    @ParameterizedTest
    @ValueSource(strings = {"flase", "no", "0", "off"})
    void anEnabledSettingThatIsNeitherTrueNorFalseIsRefusedNamingTheKey(String value) {
        assertThatThrownBy(() -> Console.enabled(new MapConfig(java.util.Map.of(ConfigKeys.CONSOLE_ENABLED, value))))
                .isInstanceOf(ConfigurationProblem.class)
                .hasMessageContaining("inbox.console.enabled = '" + value + "' is neither true nor false");
        assertThat(Console.enabled(new MapConfig(java.util.Map.of(ConfigKeys.CONSOLE_ENABLED, " FALSE ")))).isFalse();
        assertThat(Console.enabled(new MapConfig(java.util.Map.of()))).isTrue();
    }
}
