package dev.inbox.internal.form;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.internal.jdbc.RowIds;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Reads a claim's result (id, attempt before the claim, payload, headers) into deliveries. */
public final class ClaimedRows {
    private static final System.Logger LOG = System.getLogger(ClaimedRows.class.getName());
    private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {};

    private final String queue;
    private final String table;
    private final boolean binaryPayload;
    private final ObjectMapper json;

    ClaimedRows(String queue, String table, boolean binaryPayload, ObjectMapper json) {
        this.queue = queue;
        this.table = table;
        this.binaryPayload = binaryPayload;
        this.json = json;
    }

    /**
     * Every row of {@code rs}, each held by {@code claim} with {@code token} (null outside the lease
     * form), in claim order: higher priority first, then id. A statement that claims many rows at once (an
     * {@code UPDATE ... RETURNING}, say) returns them in an order of its own.
     */
    public List<InFlight> read(ResultSet rs, Instant token, Claim claim) throws SQLException {
        List<InFlight> rows = new ArrayList<>();
        boolean prioritised = rs.getMetaData().getColumnCount() >= 5;
        Map<InFlight, Integer> priorities = prioritised ? new HashMap<>() : null;
        while (rs.next()) {
            Object id = RowIds.read(rs, 1);
            int attempt = rs.getInt(2);
            byte[] payload;
            if (binaryPayload) {
                payload = rs.getBytes(3);
            } else {
                String text = rs.getString(3);
                payload = text == null ? null : text.getBytes(StandardCharsets.UTF_8);
            }
            InFlight row = new InFlight(queue, id, attempt, payload, headers(id, rs.getString(4)), token, claim);
            rows.add(row);
            if (prioritised) {
                priorities.put(row, rs.getInt(5));
            }
        }
        if (rows.size() > 1) {
            rows.sort(prioritised ? Comparator.comparing((InFlight row) -> priorities.get(row)).reversed()
                    .thenComparing(ClaimedRows::byId) : ClaimedRows::byId);
        }
        return rows;
    }

    /** Ids in their natural order where they have one (numbers, text, UUIDs); otherwise as returned. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int byId(InFlight a, InFlight b) {
        Object x = a.id();
        Object y = b.id();
        if (x instanceof Comparable && y != null && x.getClass() == y.getClass()) {
            return ((Comparable) x).compareTo(y);
        }
        return 0;
    }

    private Map<String, String> headers(Object id, String text) {
        if (text == null || text.isBlank()) {
            return Map.of();
        }
        try {
            return Map.copyOf(json.readValue(text, HEADERS));
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "queue {0}: row {1} of table {2} has headers that are not a JSON"
                    + " object of strings; ignored", queue, String.valueOf(id), table);
            return Map.of();
        }
    }
}
