package dev.inbox.schema;

import dev.inbox.Identifiers;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/** One {@code CREATE TABLE} with its indexes, written for one database. */
final class TableDdl {
    private final SchemaDatabase database;
    private final String table;
    private final boolean ifNotExists;
    private final List<String> columns = new ArrayList<>();
    private final List<Index> indexes = new ArrayList<>();
    private List<Key> primaryKey = List.of();
    private String storage = "";

    TableDdl(SchemaDatabase database, String table, boolean ifNotExists) {
        this.database = database;
        this.table = Identifiers.checkTable(table);
        this.ifNotExists = ifNotExists;
    }

    /** Adds a column: its name (checked and quoted here) and what follows it. */
    TableDdl column(String name, String definition) {
        columns.add(database.quote(Identifiers.check(name, "column")) + " " + definition);
        return this;
    }

    /** Makes {@code on} the table's primary key, where no single column is. */
    TableDdl primaryKey(List<Key> on) {
        this.primaryKey = List.copyOf(on);
        return this;
    }

    /** Adds an index named {@code <table>_<suffix>} on {@code on}, in order. */
    TableDdl index(String suffix, boolean unique, List<Key> on) {
        indexes.add(new Index(unqualified(table) + "_" + suffix, unique, on));
        return this;
    }

    /** PostgreSQL storage parameters, {@code name = value, ...}. */
    TableDdl storage(String parameters) {
        this.storage = parameters;
        return this;
    }

    List<String> statements() {
        StringJoiner body = new StringJoiner(", ", "(", ")");
        columns.forEach(body::add);
        if (!primaryKey.isEmpty()) {
            body.add("PRIMARY KEY " + quotedList(primaryKey));
        }
        if (database.inlineIndexes()) {
            indexes.forEach(index -> body.add((index.unique ? "UNIQUE KEY " : "KEY ") + database.quote(index.name)
                    + " " + quotedList(index.on)));
        }
        List<String> statements = new ArrayList<>();
        statements.add("CREATE TABLE " + (ifNotExists ? "IF NOT EXISTS " : "") + database.quote(table) + " " + body
                + database.tableOptions(storage));
        if (!database.inlineIndexes()) {
            for (Index index : indexes) {
                statements.add("CREATE " + (index.unique ? "UNIQUE " : "") + "INDEX " + (ifNotExists ? "IF NOT EXISTS " : "")
                        + indexName(index.name) + " ON " + indexedTable() + " " + quotedList(index.on));
            }
        }
        return List.copyOf(statements);
    }

    /** PostgreSQL puts an index in its table's schema; SQLite names the schema on the index instead. */
    private String indexName(String name) {
        int dot = table.indexOf('.');
        return database == SchemaDatabase.SQLITE && dot > 0
                ? database.quote(table.substring(0, dot) + "." + name) : database.quote(name);
    }

    private String indexedTable() {
        return database == SchemaDatabase.SQLITE ? database.quote(unqualified(table)) : database.quote(table);
    }

    private String quotedList(List<Key> keys) {
        StringJoiner list = new StringJoiner(", ", "(", ")");
        keys.forEach(k -> list.add(database.quote(Identifiers.check(k.name(), "column")) + (k.descending() ? " DESC" : "")));
        return list.toString();
    }

    private static String unqualified(String table) {
        return table.substring(table.indexOf('.') + 1);
    }

    /** A column of an index, descending where the claim reads it from its highest value. */
    record Key(String name, boolean descending) {
        static Key ascending(String name) {
            return new Key(name, false);
        }

        static Key descending(String name) {
            return new Key(name, true);
        }
    }

    private record Index(String name, boolean unique, List<Key> on) {}
}
