package dev.inbox.schema.recipes;

// tag::liquibase[]
import dev.inbox.schema.InboxSchema;
import java.util.ArrayList;
import java.util.List;
import liquibase.change.custom.CustomSqlChange;
import liquibase.database.Database;
import liquibase.exception.ValidationErrors;
import liquibase.resource.ResourceAccessor;
import liquibase.statement.SqlStatement;
import liquibase.statement.core.RawSqlStatement;

/**
 * A Liquibase custom change: the queue table of the {@code table} record and its dead-letter
 * table {@code deadLetter}, with the pause and schedule tables, for the database being updated.
 */
public class InboxTablesChange implements CustomSqlChange {
    private String table;
    private String deadLetter;

    public void setTable(String table) {
        this.table = table;
    }

    public void setDeadLetter(String deadLetter) {
        this.deadLetter = deadLetter;
    }

    @Override
    public SqlStatement[] generateStatements(Database database) {
        InboxSchema schema = InboxSchema.of(database.getShortName());
        Class<?> record = record();
        List<String> ddl = new ArrayList<>(schema.queue(record));
        if (deadLetter != null) {
            ddl.addAll(schema.deadLetter(record, deadLetter));
        }
        ddl.addAll(schema.pauseTable());
        ddl.addAll(schema.scheduleTable());
        ddl.addAll(schema.subscriberTable());
        return ddl.stream().map(RawSqlStatement::new).toArray(SqlStatement[]::new);
    }

    private Class<?> record() {
        try {
            return Class.forName(table, true, Thread.currentThread().getContextClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("no @InboxTable record " + table + " on the class path", e);
        }
    }

    @Override
    public String getConfirmationMessage() {
        return "Inbox tables for " + table + " created";
    }

    @Override
    public void setUp() {}

    @Override
    public void setFileOpener(ResourceAccessor resourceAccessor) {}

    @Override
    public ValidationErrors validate(Database database) {
        ValidationErrors errors = new ValidationErrors();
        errors.checkRequiredField("table", table);
        return errors;
    }
}
// end::liquibase[]
