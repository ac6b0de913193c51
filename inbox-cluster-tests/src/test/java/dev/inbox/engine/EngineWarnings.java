package dev.inbox.engine;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** The warnings (and worse) the engine logs while it is open: a lost race must not be one. */
final class EngineWarnings extends Handler implements AutoCloseable {
    private final Logger engine = Logger.getLogger("dev.inbox");
    private final List<String> warnings = new CopyOnWriteArrayList<>();

    private EngineWarnings() {
        setLevel(Level.WARNING);
    }

    static EngineWarnings count() {
        EngineWarnings warnings = new EngineWarnings();
        warnings.engine.addHandler(warnings);
        return warnings;
    }

    @Override
    public void publish(LogRecord record) {
        if (isLoggable(record)) {
            warnings.add(record.getLoggerName() + ": " + String.valueOf(record.getMessage()));
        }
    }

    List<String> warnings() {
        return List.copyOf(warnings);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
        engine.removeHandler(this);
    }
}
