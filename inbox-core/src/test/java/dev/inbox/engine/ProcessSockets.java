package dev.inbox.engine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The TCP connections this process holds, read from Linux's {@code /proc}: a database's session
 * list names each session's client port, so the sessions whose port is one of these are this
 * process's, whatever pool or code path opened them.
 */
final class ProcessSockets {
    private static final String ESTABLISHED = "01";

    private ProcessSockets() {
    }

    /** The local ports of this process's established connections to {@code remotePort}; null without {@code /proc}. */
    static Set<Integer> localPortsTo(int remotePort) {
        Path fds = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fds)) {
            return null;
        }
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> links = Files.list(fds)) {
            links.forEach(link -> {
                try {
                    String target = Files.readSymbolicLink(link).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException | UnsupportedOperationException e) {
                    // closed while we listed: not a connection any more
                }
            });
        } catch (IOException e) {
            return null;
        }
        Set<Integer> ports = new HashSet<>();
        for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
            List<String> lines;
            try {
                lines = Files.readAllLines(Path.of(table));
            } catch (IOException e) {
                continue;
            }
            for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
                String[] f = line.trim().split("\\s+");
                if (f.length > 9 && f[3].equals(ESTABLISHED) && port(f[2]) == remotePort && inodes.contains(f[9])) {
                    ports.add(port(f[1]));
                }
            }
        }
        return ports;
    }

    private static int port(String address) {
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1), 16);
    }
}
