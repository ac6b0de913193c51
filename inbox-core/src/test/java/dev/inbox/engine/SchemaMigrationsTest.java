package dev.inbox.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.Outcome;
import dev.inbox.Subscription;
import dev.inbox.schema.recipes.MakeThumbnail;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The documented migration recipes, run on every database: Flyway's Java migration
 * ({@code V1__Inbox_tables}) and Liquibase's custom change ({@code InboxTablesChange}) create
 * tables that a subscription with a dead-letter table and a pause table then works. Each runs twice,
 * the second time finding nothing to do.
 */
class SchemaMigrationsTest {
    private static final List<String> TABLES = List.of("thumbnail_jobs", "thumbnail_dead", "inbox_paused",
            "inbox_schedule", "inbox_subscribers", "flyway_schema_history", "DATABASECHANGELOG", "DATABASECHANGELOGLOCK", "databasechangelog",
            "databasechangeloglock");

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void flywaysJavaMigrationCreatesTablesTheEngineWorks(TestDatabase db) throws Exception {
        drop(db);
        for (int run = 0; run < 2; run++) {
            // An application's database already holds tables: Flyway starts its history below V1.
            Flyway.configure().dataSource(db.dataSource()).locations("classpath:dev/inbox/schema/recipes")
                    .baselineOnMigrate(true).baselineVersion("0").load().migrate();
        }
        assertTheEngineWorksTheTables(db);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TestDatabase.class)
    void liquibasesCustomChangeCreatesTablesTheEngineWorks(TestDatabase db) throws Exception {
        drop(db);
        for (int run = 0; run < 2; run++) {
            try (Connection c = db.dataSource().getConnection()) {
                Database database = DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(c));
                new CommandScope(UpdateCommandStep.COMMAND_NAME)
                        .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                        .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, "dev/inbox/schema/recipes/inbox-changelog.xml")
                        .execute();
            }
        }
        assertTheEngineWorksTheTables(db);
    }

    private static void assertTheEngineWorksTheTables(TestDatabase db) {
        Set<Integer> handled = ConcurrentHashMap.newKeySet();
        InboxBroker broker = InboxBroker.fromUrl(db.url()).pollInterval(Duration.ofMillis(100))
                .subscribe(Subscription.of("thumbnails", MakeThumbnail.class, Job.class, (job, delivery) -> {
                    if (job.n() < 0) {
                        throw new IllegalStateException("a job that fails for good");
                    }
                    handled.add(job.n());
                    return Outcome.ack();
                }).maxAttempts(1).deadLetter("thumbnail_dead"))
                .connect();
        try {
            broker.pause("thumbnails");
            assertThat(broker.paused()).containsExactly("thumbnails");
            broker.resume("thumbnails");
            broker.publisher("thumbnails", Job.class).publish(new Job(1));
            broker.publisher("thumbnails", Job.class).publish(new Job(-1));
            Eventually.await(() -> handled.contains(1) && db.count("thumbnail_dead") == 1
                    && db.count("thumbnail_jobs") == 0, Duration.ofSeconds(30), () -> handled + " handled");
            assertThat(db.count("inbox_subscribers")).as("the subscription's declaration").isEqualTo(1);
        } finally {
            broker.shutdown();
            // Other tests here describe one table name several ways in turn: they go without it.
            db.execute("DROP TABLE inbox_subscribers");
        }
    }

    private static void drop(TestDatabase db) throws Exception {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            for (String table : TABLES) {
                s.execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }
}
