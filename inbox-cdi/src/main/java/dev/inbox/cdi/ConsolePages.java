package dev.inbox.cdi;

import dev.inbox.DeadLetter;
import java.io.IOException;
import java.io.Writer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The console's HTML: plain pages with forms, no script, so that any browser (and a test driving
 * one) works them. Every value from the database is escaped.
 */
final class ConsolePages {
    private static final String STYLE = "body{font-family:system-ui,sans-serif;margin:2rem;color:#1d2330}"
            + "h1{font-size:1.4rem}table{border-collapse:collapse;margin-top:1rem}"
            + "th,td{padding:.35rem .7rem;border-bottom:1px solid #dde;text-align:left;vertical-align:top}"
            + "th{white-space:nowrap}"
            + "td.n{text-align:right;font-variant-numeric:tabular-nums}.paused{color:#b35c00;font-weight:600}"
            + ".down{color:#b00020}pre{margin:0;max-width:40rem;white-space:pre-wrap;word-break:break-all}"
            + "form{display:inline}button{cursor:pointer}svg polyline{fill:none;stroke:#2b6cb0;stroke-width:1.5}";

    /**
     * The pages' Content-Security-Policy: nothing loads or runs but their own style sheet (by its
     * hash), forms post only to the console, and no other page may frame them.
     */
    static final String POLICY = "default-src 'none'; style-src 'sha256-" + sha256(STYLE) + "'; form-action 'self';"
            + " frame-ancestors 'none'; base-uri 'none'";

    /** The characters of a dead letter's payload or headers a list shows. */
    static final int PREVIEW = DeadLetter.PREVIEW;

    private ConsolePages() {}

    static String overview(String base, Map<String, ConsoleServlet.QueueRow> rows, String token) {
        StringBuilder page = start("Inbox queues");
        page.append("<h1>Inbox queues</h1><table id=\"queues\"><thead><tr><th>queue</th><th>ready</th><th>in work")
                .append("</th><th>scheduled</th><th>dead</th><th>oldest ready</th><th>last hour</th><th>state</th>")
                .append("<th></th></tr></thead><tbody>");
        for (ConsoleServlet.QueueRow row : rows.values()) {
            String q = escape(row.queue());
            page.append("<tr data-queue=\"").append(q).append("\"><td><a href=\"").append(base).append("/queues/")
                    .append(url(row.queue())).append("\">").append(q).append("</a></td>")
                    .append(number("ready", row.ready())).append(number("in-work", row.inWork()))
                    .append(number("scheduled", row.scheduled())).append(number("dead", row.dead()))
                    .append("<td class=\"n\" data-field=\"oldest\">")
                    .append(row.oldestReadySeconds() == null ? "&ndash;" : row.oldestReadySeconds() + " s")
                    .append("</td><td>").append(sparkline(row.perMinute())).append("</td><td data-field=\"state\"")
                    .append(state(row))
                    .append("</td><td>").append(form(base + "/queues/" + url(row.queue())
                            + (row.paused() ? "/resume" : "/pause"), token, row.paused() ? "Resume" : "Pause"))
                    .append("</td></tr>");
        }
        page.append("</tbody></table><p>Counts come from the queues' tables; <em>in work</em> and the last hour's")
                .append(" deliveries are this server's. Pausing stops claims on every server within a poll interval;")
                .append(" jobs in work finish.</p>");
        return end(page);
    }

    static String queue(String base, String queue, ConsoleServlet.QueueRow row, List<DeadLetter> dead, String token) {
        String q = escape(queue);
        StringBuilder page = start("Inbox queue " + queue);
        page.append("<p><a href=\"").append(base).append("\">&larr; all queues</a></p><h1>Queue ").append(q)
                .append(row.paused() ? " <span class=\"paused\">(paused)</span>" : "").append("</h1><p>")
                .append(row.ready()).append(" ready, ").append(row.inWork()).append(" in work, ")
                .append(row.scheduled()).append(" scheduled, ").append(row.dead()).append(" dead. ")
                .append(form(base + "/queues/" + url(queue) + (row.paused() ? "/resume" : "/pause"), token,
                        row.paused() ? "Resume" : "Pause"))
                .append("</p><h2>Dead letters</h2>");
        if (dead.isEmpty()) {
            page.append("<p id=\"no-dead-letters\">None.</p>");
        } else {
            page.append("<table id=\"dead-letters\"><thead><tr><th>id</th><th>payload</th><th>headers</th>")
                    .append("<th>attempt</th><th>error</th><th>failed at</th><th></th></tr></thead><tbody>");
            for (DeadLetter letter : dead) {
                String id = String.valueOf(letter.id());
                String action = base + "/queues/" + url(queue) + "/dead-letters/" + url(id);
                page.append("<tr data-id=\"").append(escape(id)).append("\"><td><a href=\"").append(escape(action))
                        .append("\">").append(escape(id)).append("</a></td><td><pre>").append(preview(letter))
                        .append("</pre></td><td><pre>")
                        .append(letter.headers() == null ? "" : preview(letter.headers())).append("</pre></td>")
                        .append("<td class=\"n\">").append(letter.attempt()).append("</td><td><pre>")
                        .append(escape(letter.error())).append("</pre></td><td>")
                        .append(letter.failedAt() == null ? "" : escape(letter.failedAt().toString()))
                        .append("</td><td>")
                        .append(form(action + "/retry", token, "Retry")).append(' ')
                        .append(form(action + "/delete", token, "Delete")).append("</td></tr>");
            }
            page.append("</tbody></table>");
        }
        return end(page);
    }

    /**
     * The head of a dead letter's payload or headers, escaped, and how long the whole is where it
     * is longer: fifty dead letters of 2 MB made a page of 100 MB.
     */
    static String preview(String text) {
        if (text == null || text.length() <= PREVIEW) {
            return escape(text);
        }
        int end = Character.isHighSurrogate(text.charAt(PREVIEW - 1)) ? PREVIEW - 1 : PREVIEW;
        return escape(text.substring(0, end)) + cut(text.length(), "characters");
    }

    /**
     * The head of a dead letter's payload as the engine read it for a list, escaped, and how long
     * the whole is where it holds only the head; a head longer than a list shows is cut here too.
     */
    static String preview(DeadLetter letter) {
        String payload = letter.payload();
        if (payload.length() > PREVIEW) {
            return preview(payload);
        }
        return escape(payload) + (letter.payloadCut() ? cut(letter.payloadLength(), "bytes") : "");
    }

    private static String cut(long length, String unit) {
        return "<span class=\"cut\">&hellip; (" + count(length) + " " + unit
                + " in all)</span>";
    }

    /**
     * One dead letter's page: its payload as far as the console's limit reads it (escaped as it is
     * written, a piece at a time), its headers, error, last error (where the queue keeps one), and
     * Retry and Delete.
     */
    static void letter(Writer out, String base, String queue, DeadLetter letter, String token) throws IOException {
        String id = String.valueOf(letter.id());
        String action = base + "/queues/" + url(queue) + "/dead-letters/" + url(id);
        StringBuilder head = start("Inbox dead letter " + id + " of " + queue);
        head.append("<p><a href=\"").append(base).append("/queues/").append(url(queue)).append("\">&larr; queue ")
                .append(escape(queue)).append("</a></p><h1>Dead letter ").append(escape(id)).append("</h1><p>Attempt ")
                .append(letter.attempt()).append(", failed at ")
                .append(letter.failedAt() == null ? "" : escape(letter.failedAt().toString())).append(". ")
                .append(form(action + "/retry", token, "Retry")).append(' ').append(form(action + "/delete", token,
                        "Delete")).append("</p><h2>Error</h2><pre id=\"error\">").append(escape(letter.error()))
                .append("</pre>");
        if (letter.lastError() != null) {
            // The last attempt's failure in full: its class, message and first frames, or the retry's reason.
            head.append("<h2>Last error</h2><pre id=\"last-error\">").append(escape(letter.lastError()))
                    .append("</pre>");
        }
        head.append("<h2>Headers</h2><pre id=\"headers\">").append(escape(letter.headers()))
                .append("</pre><h2>Payload</h2>");
        if (letter.payloadCut()) {
            head.append("<p id=\"payload-cut\" class=\"paused\">The first ")
                    .append(count(letter.payload().length()))
                    .append(" characters of ").append(count(letter.payloadLength()))
                    .append(" bytes (MicroProfile Config ").append(ConfigKeys.CONSOLE_PAYLOAD_LIMIT)
                    .append(" sets how many):</p>");
        }
        out.write(head.append("<pre id=\"payload\">").toString());
        String payload = letter.payload();
        int from = 0;
        while (from < payload.length()) {
            int to = Math.min(payload.length(), from + 8192);
            if (to < payload.length() && Character.isHighSurrogate(payload.charAt(to - 1))) {
                to--; // a pair of surrogates stays in one piece
            }
            out.write(escape(payload.substring(from, to)));
            from = to;
        }
        out.write(end(new StringBuilder("</pre>")));
    }

    static String error(String base, int status, String message) {
        StringBuilder page = start("Inbox console: " + status);
        page.append("<h1>").append(status).append("</h1><p id=\"error\">").append(escape(message))
                .append("</p><p><a href=\"").append(base).append("\">the console</a></p>");
        return end(page);
    }

    private static StringBuilder start(String title) {
        return new StringBuilder(4096).append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<title>").append(escape(title)).append("</title><style>").append(STYLE)
                .append("</style></head><body>");
    }

    private static String end(StringBuilder page) {
        return page.append("</body></html>").toString();
    }

    /**
     * The state cell's class and text: paused, running, its problem, or published only (handled by
     * another application).
     */
    private static String state(ConsoleServlet.QueueRow row) {
        if (row.paused()) {
            return " class=\"paused\">paused";
        }
        if (row.health() == null) {
            return ">published here, handled by another application";
        }
        return row.health().equals("UP") ? ">running" : " class=\"down\">" + escape(row.health());
    }

    private static String number(String field, long value) {
        return "<td class=\"n\" data-field=\"" + field + "\">" + value + "</td>";
    }

    private static String form(String action, String token, String label) {
        return "<form method=\"post\" action=\"" + escape(action) + "\"><input type=\"hidden\" name=\"token\" value=\""
                + escape(token) + "\"><button type=\"submit\">" + label + "</button></form>";
    }

    /** Deliveries per minute over the last hour as a line, scaled to the busiest minute; its title says the total. */
    static String sparkline(long[] perMinute) {
        long max = 1;
        long total = 0;
        for (long n : perMinute) {
            max = Math.max(max, n);
            total += n;
        }
        int width = 120;
        int height = 24;
        StringBuilder points = new StringBuilder();
        for (int i = 0; i < perMinute.length; i++) {
            double x = perMinute.length == 1 ? 0 : i * (double) width / (perMinute.length - 1);
            double y = height - 1 - perMinute[i] * (height - 2) / (double) max;
            points.append(String.format(java.util.Locale.ROOT, "%.1f,%.1f ", x, y));
        }
        return "<svg class=\"sparkline\" width=\"" + width + "\" height=\"" + height + "\" viewBox=\"0 0 " + width + " "
                + height + "\" role=\"img\"><title>" + total + " deliveries in the last hour</title><polyline points=\""
                + points.toString().trim() + "\"/></svg>";
    }

    /** {@code n} with its thousands marked, as every page writes a count. */
    private static String count(long n) {
        return String.format(java.util.Locale.ROOT, "%,d", n);
    }

    private static String sha256(String text) {
        try {
            return java.util.Base64.getEncoder().encodeToString(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    private static String url(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    static String escape(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
