package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.Column;
import dev.inbox.InboxSpec;
import dev.inbox.engine.form.ConnectionSource;
import dev.inbox.engine.form.FormContext;
import dev.inbox.engine.form.RowLockForm;
import dev.inbox.spi.Dialect;
import dev.inbox.spi.TableShape;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The acks of a row lock claim on PostgreSQL: one statement for its rows with the commit of the
 * claim's transaction after it, sent together ({@link Dialect#withCommit}), where the acks and the
 * commit took a round trip each.
 */
class RowLockAcksTest {
    private static final String TABLE = "row_lock_ack_jobs";

    /** What the form did on its connections: the statements it prepared, and each commit. */
    private final List<String> calls = new CopyOnWriteArrayList<>();

    private final RecordedReports recorder = new RecordedReports();
    private final List<String> reports = recorder.lines;

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = "POSTGRES")
    void aClaimsAcksAndItsCommitGoTogether(TestDatabase db) throws Exception {
        db.createLeaseTable(TABLE); // its lease column unused: the description below has none
        Dialect dialect = db.dialect();
        InboxSpec spec = InboxSpec.table(TABLE, Column.of("id").generated()).attempt(Column.of("attempt").generated())
                .payload(Column.of("payload"));
        TableShape shape = new TableShape(spec, dialect::quote, Map.of("id", "bigserial"));
        ConnectionSource source = () -> recording(db.dataSource().getConnection());
        FormContext context = new FormContext("acks", spec, dialect, source, Clock.systemUTC(),
                new BrokerListener() {}, recorder, null, new Sql("ack all", dialect.ackAll(shape, false)), true,
                new ObjectMapper(), false, new JdbcDeliveryTransactions(source, dialect), shape, sql -> true);
        RowLockForm form = new RowLockForm(context, dialect.rowLock(shape));
        db.execute("INSERT INTO " + TABLE + " (payload) VALUES ('\\x7b7d'), ('\\x7b7d'), ('\\x7b7d'), ('\\x7b7d')");

        List<InFlight> claimed = form.claim(Instant.now(), 3);
        assertThat(claimed).hasSize(3);
        calls.clear();
        for (InFlight delivery : claimed) {
            synchronized (delivery) {
                delivery.markSettled();
            }
            delivery.claim().ack(delivery, Instant.now());
        }

        assertThat(reports).hasSize(3).allMatch(r -> r.contains(" acked on "));
        assertThat(calls).as("the acks' statement carries the commit; the driver sends nothing for commit()")
                .containsExactly("prepare " + dialect.withCommit(context.ackAll().jdbc()), "commit");
        assertThat(db.count(TABLE)).as("committed: another session sees the acked rows gone").isEqualTo(1);
        assertThat(form.claim(Instant.now(), 3)).as("and the claim's locks ended").hasSize(1);
    }

    /** {@code connection}, noting each statement prepared on it and each commit. */
    private Connection recording(Connection connection) {
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("prepareStatement")) {
                        calls.add("prepare " + args[0]);
                    } else if (method.getName().equals("commit")) {
                        calls.add("commit");
                    }
                    try {
                        return method.invoke(connection, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
