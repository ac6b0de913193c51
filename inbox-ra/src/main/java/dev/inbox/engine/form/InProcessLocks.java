package dev.inbox.engine.form;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Advisory locks kept in this process, for a database that has none of its own (SQLite): every
 * broker of the process on one database shares them; other processes do not see them.
 */
final class InProcessLocks {
    private static final Set<String> HELD = ConcurrentHashMap.newKeySet();

    private InProcessLocks() {}

    static boolean tryLock(String name) {
        return HELD.add(name);
    }

    static boolean unlock(String name) {
        return HELD.remove(name);
    }
}
