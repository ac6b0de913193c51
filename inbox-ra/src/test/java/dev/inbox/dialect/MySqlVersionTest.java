package dev.inbox.dialect;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxException;
import org.junit.jupiter.api.Test;

/** The version floors of MySQL 8.0.1 and MariaDB 10.6, read as the server reports its version. */
class MySqlVersionTest {

    @Test
    void olderServersFailWithServerTooOldNamingBothVersions() {
        assertThatThrownBy(() -> MySqlDialect.checkVersion("10.5.27-MariaDB-log", "jobs"))
                .isInstanceOf(InboxException.class)
                .hasMessageContaining("SERVER_TOO_OLD").hasMessageContaining("10.5.27-MariaDB-log")
                .hasMessageContaining("MariaDB 10.6").hasMessageContaining("jobs");
        assertThatThrownBy(() -> MySqlDialect.checkVersion("8.0.0-dmr", "jobs"))
                .hasMessageContaining("SERVER_TOO_OLD").hasMessageContaining("MySQL 8.0.1");
        assertThatThrownBy(() -> MySqlDialect.checkVersion("5.7.44", "jobs")).hasMessageContaining("MySQL 8.0.1");
    }

    @Test
    void serversAtOrAboveTheFloorPass() {
        assertThatCode(() -> MySqlDialect.checkVersion("10.6.0-MariaDB", "jobs")).doesNotThrowAnyException();
        assertThatCode(() -> MySqlDialect.checkVersion("10.11.19-MariaDB-0+deb12u1", "jobs")).doesNotThrowAnyException();
        assertThatCode(() -> MySqlDialect.checkVersion("8.0.1", "jobs")).doesNotThrowAnyException();
        assertThatCode(() -> MySqlDialect.checkVersion("9.1.0", "jobs")).doesNotThrowAnyException();
    }
}
