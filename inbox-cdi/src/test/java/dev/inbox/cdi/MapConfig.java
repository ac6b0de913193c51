package dev.inbox.cdi;

import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigValue;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.eclipse.microprofile.config.spi.Converter;

/** MicroProfile Config over a map of text values, for the tests of what the extension reads from it. */
final class MapConfig implements Config {
    private final Map<String, String> values;

    MapConfig(Map<String, String> values) {
        this.values = Map.copyOf(values);
    }

    @Override
    public <T> T getValue(String name, Class<T> type) {
        return getOptionalValue(name, type).orElseThrow(() -> new NoSuchElementException(name));
    }

    @Override
    public ConfigValue getConfigValue(String name) {
        throw new UnsupportedOperationException();
    }

    @Override
    public <T> Optional<T> getOptionalValue(String name, Class<T> type) {
        if (type != String.class) {
            throw new UnsupportedOperationException("the extension reads text and parses it itself, not " + type);
        }
        return Optional.ofNullable(type.cast(values.get(name)));
    }

    @Override
    public Iterable<String> getPropertyNames() {
        return values.keySet();
    }

    @Override
    public Iterable<ConfigSource> getConfigSources() {
        return java.util.List.of();
    }

    @Override
    public <T> Optional<Converter<T>> getConverter(Class<T> forType) {
        return Optional.empty();
    }

    @Override
    public <T> T unwrap(Class<T> type) {
        throw new IllegalArgumentException();
    }
}
