package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.ClaimForm;
import dev.inbox.InboxException;
import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.schema.InboxSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A three-node MariaDB Galera Cluster ({@code scripts/galera.sh}). Row lock and advisory tables,
 * whose locks hold on one node, are refused at connect.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GaleraClusterTest {
    private static final String TABLE = "galera_jobs";
    private static GaleraCluster cluster;

    @BeforeAll
    static void startTheCluster() {
        cluster = GaleraCluster.fromBuild();
        cluster.start();
    }

    @AfterAll
    static void stopTheCluster() {
        if (cluster != null) {
            cluster.stop();
        }
    }

    @Order(1)
    @ParameterizedTest
    @EnumSource(value = ClaimForm.class, names = {"ROW_LOCK", "ADVISORY"})
    void formsWhoseLocksHoldOnOneNodeAreRefusedNamingGaleraAndTheLeaseForm(ClaimForm form) throws SQLException {
        createTables(form);
        InboxBroker broker = InboxBroker.fromUrl(GaleraCluster.url(1)).connectionLimit(4)
                .subscribe(Subscription.of("galera", FormTables.spec(TABLE, form), Job.class, (job, d) -> Outcome.ack()));
        assertThatThrownBy(broker::connect).isInstanceOfSatisfying(InboxException.class, e -> {
            assertThat(e.kind()).isEqualTo(InboxException.Kind.DIALECT);
            assertThat(e.getMessage()).contains("Galera", "lease form", TABLE);
        });
    }

    private static void createTables(ClaimForm form) throws SQLException {
        try (Connection c = cluster.connect(1); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + TABLE);
            for (String sql : InboxSchema.of("mariadb").queue(FormTables.spec(TABLE, form))) {
                s.execute(sql);
            }
        }
    }
}
