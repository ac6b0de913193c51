package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.inbox.ConnectionPooler;
import dev.inbox.InboxException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A broker declared to be behind transaction pooling refuses, at connect, a connection that would
 * keep state in a session: pgjdbc preparing statements on the server, and every database but
 * PostgreSQL. Without a pooler, or with session pooling, every database connects. (PgBouncerTest
 * in inbox-cluster-tests runs the forms through a real PgBouncer.)
 */
class ConnectionPoolerTest {

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void sessionPoolingAndNoPoolerAllowEveryDatabase(TestDatabase db) {
        for (ConnectionPooler pooler : new ConnectionPooler[] {ConnectionPooler.NONE, ConnectionPooler.SESSION}) {
            InboxBroker broker = InboxBroker.fromUrl(db.url()).connectionPooler(pooler).connect();
            broker.shutdown();
        }
    }

    @Test
    void transactionPoolingRefusesPgjdbcPreparingOnTheServer() {
        String url = TestDatabase.POSTGRES.url();
        assertThatThrownBy(() -> InboxBroker.fromUrl(url).connectionPooler(ConnectionPooler.TRANSACTION).connect())
                .isInstanceOf(InboxException.class).hasMessageContaining("DECLARATION")
                .hasMessageContaining("prepareThreshold=5").hasMessageContaining("add prepareThreshold=0");
        InboxBroker unnamed = InboxBroker.fromUrl(url + (url.contains("?") ? "&" : "?") + "prepareThreshold=0")
                .connectionPooler(ConnectionPooler.TRANSACTION).connect();
        assertThat(unnamed.dialectName()).isEqualTo("postgresql");
        unnamed.shutdown();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "CONNECTOR_J", "MYSQL", "SQLITE"})
    void transactionPoolingRefusesDatabasesThatKeepSessionState(TestDatabase db) {
        String url = db.url(); // skips where the database is missing (MySQL without Docker)
        assertThatThrownBy(() -> InboxBroker.fromUrl(url).connectionPooler(ConnectionPooler.TRANSACTION).connect())
                .isInstanceOf(InboxException.class).hasMessageContaining("DECLARATION")
                .hasMessageContaining("dialect keeps state in its sessions")
                .hasMessageContaining("connectionPooler SESSION");
    }

    @Test
    void aPoolerNameOutsideTheThreeIsRefusedNamingTheSetting() {
        assertThat(ConnectionPooler.parse("key inbox.connection-pooler", " Session ")).isEqualTo(ConnectionPooler.SESSION);
        assertThatThrownBy(() -> ConnectionPooler.parse("key inbox.connection-pooler", "statement"))
                .isInstanceOf(InboxException.class)
                .hasMessageContaining("key inbox.connection-pooler = statement names no pooler");
    }
}
