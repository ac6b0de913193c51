package dev.inbox.spi;

/**
 * A column's type as the driver reports it at open ({@link java.sql.ResultSetMetaData}): its
 * name, precision and scale, which for a time are its fractional digits on PostgreSQL and MariaDB's
 * driver (MySQL's driver reports them in the precision alone).
 */
public record ColumnType(String name, int precision, int scale) {}
