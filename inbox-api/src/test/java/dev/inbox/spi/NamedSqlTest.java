package dev.inbox.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class NamedSqlTest {

    @Test
    void namedParametersBecomePlaceholdersInOrder() {
        NamedSql sql = NamedSql.parse("UPDATE t SET a = :expiry WHERE id = :id AND a = :token OR b <= :expiry");
        assertThat(sql.jdbc()).isEqualTo("UPDATE t SET a = ? WHERE id = ? AND a = ? OR b <= ?");
        assertThat(sql.parameters()).containsExactly("expiry", "id", "token", "expiry");
        assertThat(sql.positions("expiry")).containsExactly(1, 4);
        assertThat(sql.positions("none")).isEmpty();
    }

    @Test
    void castsQuotedTextAndQuotedNamesAreLeftAlone() {
        NamedSql sql = NamedSql.parse("SELECT ':not', \"a:b\", `c:d`, x::text FROM t WHERE y = CAST(:v AS jsonb)");
        assertThat(sql.jdbc()).isEqualTo("SELECT ':not', \"a:b\", `c:d`, x::text FROM t WHERE y = CAST(? AS jsonb)");
        assertThat(sql.parameters()).isEqualTo(List.of("v"));
    }
}
