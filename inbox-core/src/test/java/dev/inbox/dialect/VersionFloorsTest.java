package dev.inbox.dialect;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.InboxException;
import org.junit.jupiter.api.Test;

/** The version floors: MySQL 8.0.1 and MariaDB 10.6 (SKIP LOCKED), PostgreSQL 11 for advisory locks and groups. */
class VersionFloorsTest {

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

    @Test
    void aVersionThatCannotBeReadFailsWithDialect() {
        assertThatThrownBy(() -> MySqlDialect.checkVersion("custom-build", "jobs"))
                .hasMessageContaining("DIALECT").hasMessageContaining("'custom-build' cannot be read")
                .hasMessageContaining("jobs");
        assertThatThrownBy(() -> MySqlDialect.checkVersion(null, "jobs")).hasMessageContaining("DIALECT");
    }

    @Test
    void aBinaryLogOfStatementsIsRefusedNamingTheVariable() {
        assertThatThrownBy(() -> MySqlDialect.checkBinaryLog(true, "STATEMENT", "jobs"))
                .hasMessageContaining("DIALECT").hasMessageContaining("binlog_format")
                .hasMessageContaining("ROW").hasMessageContaining("jobs");
        assertThatCode(() -> MySqlDialect.checkBinaryLog(true, "ROW", "jobs")).doesNotThrowAnyException();
        assertThatCode(() -> MySqlDialect.checkBinaryLog(true, "MIXED", "jobs")).doesNotThrowAnyException();
        assertThatCode(() -> MySqlDialect.checkBinaryLog(false, "STATEMENT", "jobs")).doesNotThrowAnyException();
    }

    @Test
    void postgresBelowElevenCannotServeAdvisoryLocksOrGroups() {
        assertThatThrownBy(() -> PostgresDialect.checkVersion(100_017, "jobs", dev.inbox.ClaimForm.ADVISORY))
                .hasMessageContaining("SERVER_TOO_OLD").hasMessageContaining("PostgreSQL 11")
                .hasMessageContaining("100017").hasMessageContaining("advisory");
        assertThatThrownBy(() -> PostgresDialect.checkVersion(96_000, "jobs", dev.inbox.ClaimForm.LEASE))
                .hasMessageContaining("FIFO groups");
        assertThatCode(() -> PostgresDialect.checkVersion(150_019, "jobs", dev.inbox.ClaimForm.ADVISORY))
                .doesNotThrowAnyException();
    }
}
