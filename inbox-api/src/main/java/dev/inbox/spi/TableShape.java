package dev.inbox.spi;

import dev.inbox.Column;
import dev.inbox.InboxSpec;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * A described table as the database has it: the description, each name quoted by the dialect, and
 * each column's database type name (read from the database when the subscription opens).
 */
public final class TableShape {
    private final InboxSpec spec;
    private final Function<String, String> quote;
    private final Map<String, String> typeNames;
    private final String claimIndex;

    public TableShape(InboxSpec spec, Function<String, String> quote, Map<String, String> typeNames) {
        this(spec, quote, typeNames, null);
    }

    private TableShape(InboxSpec spec, Function<String, String> quote, Map<String, String> typeNames,
            String claimIndex) {
        this.spec = spec;
        this.quote = quote;
        this.typeNames = Map.copyOf(typeNames);
        this.claimIndex = claimIndex;
    }

    /** This shape, with the index its claims read through ({@link Dialect#claimIndex}). */
    public TableShape withClaimIndex(String index) {
        return new TableShape(spec, quote, typeNames, index);
    }

    /** The unquoted name of the index the claims must read the table through, where the dialect found one. */
    public Optional<String> claimIndex() {
        return Optional.ofNullable(claimIndex);
    }

    public InboxSpec spec() {
        return spec;
    }

    /** The quoted table name. */
    public String table() {
        return quote.apply(spec.table());
    }

    /** The quoted name of {@code column}. */
    public String name(Column column) {
        return quote.apply(column.name());
    }

    /** The quoted name of an optional column, if the table has it. */
    public Optional<String> name(Optional<Column> column) {
        return column.map(this::name);
    }

    /** The quoted id column. */
    public String id() {
        return name(spec.id());
    }

    /** The database's type name of {@code column}, lower case; empty when it was not read. */
    public String typeName(Column column) {
        String type = typeNames.get(column.name());
        return type == null ? "" : type.toLowerCase(Locale.ROOT);
    }
}
