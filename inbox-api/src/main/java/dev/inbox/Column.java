package dev.inbox;

import java.util.Objects;

/** One column of a queue table's description: {@code Column.of("id").generated()}. */
public final class Column {
    private final String name;
    private final boolean generated;

    private Column(String name, boolean generated) {
        this.name = Identifiers.check(name, "column");
        this.generated = generated;
    }

    /** A column the publisher writes. */
    public static Column of(String name) {
        return new Column(name, false);
    }

    /** The same column, filled by the database on insert (identity, sequence or default). */
    public Column generated() {
        return new Column(name, true);
    }

    /** The column's name, as the database knows it. */
    public String name() {
        return name;
    }

    /** True when the database fills the column on insert. */
    public boolean isGenerated() {
        return generated;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Column other && name.equals(other.name) && generated == other.generated;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, generated);
    }

    @Override
    public String toString() {
        return generated ? name + " (generated)" : name;
    }
}
