package dev.inbox.cdi;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inbox.BrokerHealth;
import dev.inbox.DeadLetter;
import dev.inbox.InboxException;
import dev.inbox.QueueHealth;
import dev.inbox.QueueStats;
import dev.inbox.engine.InboxBroker;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Inbox's console: a page of the application's queues (counts, the oldest ready job's wait, a
 * sparkline of the last hour, health, pause and resume) and one page per queue of its dead letters
 * (retry, delete); the same actions as a small JSON API under {@code api/}. The web listener maps it
 * under the console's path, for the console's role only. Forms carry a per-session token and the
 * API asks for the header {@value #API_HEADER}, so another site cannot make a signed-in browser act.
 */
final class ConsoleServlet extends HttpServlet {
    static final String API_HEADER = "X-Inbox-Console";
    private static final int DEAD_LETTER_PAGE = 100;
    private static final Pattern QUEUE = Pattern.compile("[A-Za-z0-9_.-]{1,200}");
    private static final SecureRandom RANDOM = new SecureRandom();

    /** The methods the console answers; TRACE would echo a request back, its credentials too. */
    static final String METHODS = "GET, HEAD, POST, DELETE";
    private static final Set<String> ANSWERED = Set.of(METHODS.split(", "));

    private final transient Supplier<InboxBroker> broker;
    private final transient Supplier<BrokerHealth> health;
    private final Throughput throughput;
    private final int payloadLimit;
    private final transient ObjectMapper json = InboxBroker.defaultJson();

    /**
     * A console of the broker {@code broker} supplies (and fails to before Inbox started), its
     * health as {@code health} says, that reads at most {@code payloadLimit} characters of one dead
     * letter's payload.
     */
    ConsoleServlet(Supplier<InboxBroker> broker, Supplier<BrokerHealth> health, Throughput throughput,
            int payloadLimit) {
        this.broker = broker;
        this.health = health;
        this.throughput = throughput;
        this.payloadLimit = payloadLimit;
    }

    /**
     * Every answer, errors too, may not be framed by another page (clickjacking a Retry or a
     * Delete), nor read as another type than it says; a method the console does not use is 405.
     */
    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response)
            throws ServletException, IOException {
        response.setHeader("X-Frame-Options", "DENY");
        response.setHeader("Content-Security-Policy", ConsolePages.POLICY);
        response.setHeader("X-Content-Type-Options", "nosniff");
        if (!ANSWERED.contains(request.getMethod())) {
            response.setHeader("Allow", METHODS);
            failed(request, response, 405, "the console answers " + METHODS + ", not " + request.getMethod());
            return;
        }
        super.service(request, response);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        answering(request, response, () -> get(request, response));
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        answering(request, response, () -> post(request, response));
    }

    @Override
    protected void doDelete(HttpServletRequest request, HttpServletResponse response) throws IOException {
        answering(request, response, () -> delete(request, response));
    }

    /** What one request does; it throws what {@link #answering} turns into an error answer. */
    @FunctionalInterface
    private interface Action {
        void run() throws IOException;
    }

    /** Runs {@code action}, answering the engine's refusals with their status and message. */
    private void answering(HttpServletRequest request, HttpServletResponse response, Action action)
            throws IOException {
        try {
            action.run();
        } catch (InboxException e) {
            failed(request, response, status(e), e.getMessage());
        } catch (IllegalArgumentException e) {
            failed(request, response, 400, e.getMessage());
        }
    }

    private void get(HttpServletRequest request, HttpServletResponse response) throws IOException {
        List<String> path = segments(request);
        if (path.isEmpty()) {
            html(response, 200, ConsolePages.overview(base(request), overview(), token(request)));
        } else if (path.size() == 2 && path.get(0).equals("queues")) {
            String queue = queue(path.get(1));
            html(response, 200, ConsolePages.queue(base(request), queue, row(queue), broker.get()
                    .deadLetters(queue, DEAD_LETTER_PAGE), token(request)));
        } else if (path.size() == 4 && path.get(0).equals("queues") && path.get(2).equals("dead-letters")) {
            String queue = queue(path.get(1));
            DeadLetter letter = broker.get().deadLetter(queue, id(path.get(3)), payloadLimit);
            String token = token(request);
            ConsolePages.letter(start(response, 200, "text/html;charset=UTF-8"), base(request), queue, letter, token);
        } else if (path.equals(List.of("api", "queues"))) {
            json(response, 200, overview());
        } else if (path.equals(List.of("api", "health"))) {
            json(response, 200, health());
        } else if (path.size() == 4 && path.get(0).equals("api") && path.get(1).equals("queues")
                && path.get(3).equals("dead-letters")) {
            json(response, 200, broker.get().deadLetters(queue(path.get(2)), limit(request)));
        } else if (path.size() == 5 && path.get(0).equals("api") && path.get(1).equals("queues")
                && path.get(3).equals("dead-letters")) {
            DeadLetter letter = broker.get().deadLetter(queue(path.get(2)), id(path.get(4)), payloadLimit);
            Map<String, Object> answer = json.convertValue(letter, new com.fasterxml.jackson.core.type.TypeReference<
                    LinkedHashMap<String, Object>>() {});
            answer.put("payloadCut", letter.payloadCut());
            json(response, 200, answer);
        } else {
            failed(request, response, 404, "no console page at " + request.getRequestURI());
        }
    }

    private void post(HttpServletRequest request, HttpServletResponse response) throws IOException {
        List<String> path = segments(request);
        boolean api = !path.isEmpty() && path.get(0).equals("api");
        List<String> action = api ? path.subList(1, path.size()) : path;
        if (api ? request.getHeader(API_HEADER) == null : !tokenMatches(request)) {
            failed(request, response, 403, api ? "send the header " + API_HEADER + " with the console's API calls"
                    : "this form is stale or came from elsewhere: reload the console and try again");
            return;
        }
        if (action.size() < 3 || !action.get(0).equals("queues")) {
            failed(request, response, 404, "no console action at " + request.getRequestURI());
            return;
        }
        String queue = queue(action.get(1));
        InboxBroker broker = this.broker.get();
        String back = base(request);
        if (action.size() == 3 && action.get(2).equals("pause")) {
            broker.pause(queue);
        } else if (action.size() == 3 && action.get(2).equals("resume")) {
            broker.resume(queue);
        } else if (action.size() == 5 && action.get(2).equals("dead-letters") && action.get(4).equals("retry")) {
            broker.retryDeadLetter(queue, id(action.get(3)));
            back += "/queues/" + encode(queue);
        } else if (!api && action.size() == 5 && action.get(2).equals("dead-letters")
                && action.get(4).equals("delete")) {
            broker.deleteDeadLetter(queue, id(action.get(3)));
            back += "/queues/" + encode(queue);
        } else {
            failed(request, response, 404, "no console action at " + request.getRequestURI());
            return;
        }
        if (api) {
            response.setStatus(204);
        } else {
            response.setStatus(303); // back to the page the form was on, which now shows the change
            response.setHeader("Location", back);
        }
    }

    private void delete(HttpServletRequest request, HttpServletResponse response) throws IOException {
        List<String> path = segments(request);
        if (request.getHeader(API_HEADER) == null) {
            failed(request, response, 403, "send the header " + API_HEADER + " with the console's API calls");
        } else if (path.size() == 5 && path.get(0).equals("api") && path.get(1).equals("queues")
                && path.get(3).equals("dead-letters")) {
            broker.get().deleteDeadLetter(queue(path.get(2)), id(path.get(4)));
            response.setStatus(204);
        } else {
            failed(request, response, 404, "no console action at " + request.getRequestURI());
        }
    }

    /** One queue as the console shows it; {@code health} is null for a queue this application only publishes to. */
    record QueueRow(String queue, long ready, long inWork, long scheduled, long dead, Long oldestReadySeconds,
            boolean paused, String health, long[] perMinute) {}

    private Map<String, QueueRow> overview() {
        InboxBroker broker = this.broker.get();
        Map<String, QueueStats> stats = broker.stats();
        Set<String> paused = broker.paused();
        Map<String, String> health = new LinkedHashMap<>();
        for (QueueHealth queue : this.health.get().queues()) { // with the message-driven beans' queues
            health.put(queue.queue(), queue.ready() && queue.live() ? "UP" : queue.problem());
        }
        Map<String, QueueRow> rows = new LinkedHashMap<>();
        stats.forEach((queue, s) -> rows.put(queue, new QueueRow(queue, s.ready(), s.inWork(), s.scheduled(),
                s.dead(), s.oldestReady() == null ? null : s.oldestReady().toSeconds(), paused.contains(queue),
                health.get(queue), throughput.perMinute(queue))));
        return rows;
    }

    /** The health checks' answers with what is wrong in full, whatever {@code inbox.health.details} says. */
    private Map<String, Object> health() {
        BrokerHealth now = health.get();
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("ready", now.ready());
        answer.put("live", now.live());
        answer.put("readiness", InboxHealth.data(now, QueueHealth::ready, true));
        answer.put("liveness", InboxHealth.data(now, QueueHealth::live, true));
        return answer;
    }

    private QueueRow row(String queue) {
        QueueRow row = overview().get(queue);
        if (row == null) {
            throw new InboxException(InboxException.Kind.NOT_FOUND, "queue " + queue + " is not one of this"
                    + " application's queues");
        }
        return row;
    }

    private static int status(InboxException e) {
        return switch (e.kind()) {
            case NOT_FOUND -> 404;
            case SCHEMA -> 409;
            case DECLARATION -> 400;
            case CLOSED, DATABASE, CONNECT, LIFECYCLE -> 503;
            default -> 500;
        };
    }

    private static List<String> segments(HttpServletRequest request) {
        List<String> segments = new ArrayList<>();
        String info = request.getPathInfo();
        if (info != null) {
            for (String segment : info.split("/")) {
                if (!segment.isEmpty()) {
                    segments.add(segment);
                }
            }
        }
        return segments;
    }

    private static String queue(String text) {
        if (!QUEUE.matcher(text).matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a queue name: letters, digits, '_', '-', '.'");
        }
        return text;
    }

    /** A dead letter's id as the database keeps it: a number where it reads as one, else its text. */
    private static Object id(String text) {
        try {
            return Long.valueOf(text);
        } catch (NumberFormatException e) {
            return text;
        }
    }

    private static int limit(HttpServletRequest request) {
        String limit = request.getParameter("limit");
        if (limit == null) {
            return DEAD_LETTER_PAGE;
        }
        try {
            int value = Integer.parseInt(limit);
            if (value >= 1 && value <= 1000) {
                return value;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new IllegalArgumentException("limit=" + limit + ": give a number of dead letters from 1 to 1000");
    }

    private static String base(HttpServletRequest request) {
        return request.getContextPath() + request.getServletPath();
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    /** The session's form token, made on its first page. */
    private static String token(HttpServletRequest request) {
        HttpSession session = request.getSession(true);
        String token = (String) session.getAttribute(ConsoleServlet.class.getName());
        if (token == null) {
            byte[] bytes = new byte[24];
            RANDOM.nextBytes(bytes);
            token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
            session.setAttribute(ConsoleServlet.class.getName(), token);
        }
        return token;
    }

    private static boolean tokenMatches(HttpServletRequest request) {
        HttpSession session = request.getSession(false);
        String expected = session == null ? null : (String) session.getAttribute(ConsoleServlet.class.getName());
        String given = request.getParameter("token");
        return expected != null && given != null && MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8),
                given.getBytes(StandardCharsets.UTF_8));
    }

    private void failed(HttpServletRequest request, HttpServletResponse response, int status, String message)
            throws IOException {
        if (segments(request).stream().findFirst().filter("api"::equals).isPresent()) {
            json(response, status, Map.of("error", message));
        } else {
            html(response, status, ConsolePages.error(base(request), status, message));
        }
    }

    private static void html(HttpServletResponse response, int status, String page) throws IOException {
        start(response, status, "text/html;charset=UTF-8").write(page);
    }

    private void json(HttpServletResponse response, int status, Object body) throws IOException {
        start(response, status, "application/json;charset=UTF-8").write(json.writeValueAsString(body));
    }

    private static java.io.Writer start(HttpServletResponse response, int status, String type) throws IOException {
        response.setStatus(status);
        response.setContentType(type);
        response.setHeader("Cache-Control", "no-store");
        return response.getWriter();
    }
}
