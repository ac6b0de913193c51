package dev.inbox.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.inbox.BrokerHealth;
import dev.inbox.Column;
import dev.inbox.InboxSpec;
import dev.inbox.Outcome;
import dev.inbox.QueueHealth;
import dev.inbox.Subscription;
import dev.inbox.schema.InboxSchema;
import dev.inbox.testkit.InboxTestKit;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The console's servlet over real HTTP (Jetty), on a broker on in-memory SQLite with one dead
 * letter: what every answer carries, the methods it refuses, and the health it tells its
 * administrators.
 */
class ConsoleServletTest {
    static final InboxSpec TABLE = InboxSpec.table("console_jobs", Column.of("id").generated())
            .payload(Column.of("payload")).attempt(Column.of("attempt").generated()).lease(Column.of("locked_until"))
            .lastError(Column.of("last_error"));
    static final String DEAD = "console_dead";
    static final int LIMIT = 5000;

    private final HttpClient http = HttpClient.newHttpClient();
    final AtomicReference<BrokerHealth> health = new AtomicReference<>();
    InboxTestKit kit;
    private Server server;
    private String base;

    @BeforeEach
    void start() throws Exception {
        kit = InboxTestKit.sqlite();
        kit.execute(InboxSchema.of("sqlite").queue(TABLE).toArray(String[]::new));
        kit.execute(InboxSchema.of("sqlite").deadLetter(TABLE, DEAD).toArray(String[]::new));
        kit.subscribe(Subscription.of("console", TABLE, Payload.class, (payload, delivery) -> {
            if (payload.text().equals("throws")) {
                throw new IllegalStateException("<i>card declined</i> for jdbc:postgresql://db/app?password=s3cret");
            }
            return Outcome.drop("no use");
        }).maxAttempts(1).deadLetter(DEAD))
                .configure(broker -> broker.pollInterval(Duration.ofMillis(50))).start();
        health.set(kit.broker().health());
        server = new Server(new InetSocketAddress("127.0.0.1", 0));
        ServletContextHandler context = new ServletContextHandler("/app", ServletContextHandler.SESSIONS);
        context.addServlet(new ServletHolder(new ConsoleServlet(kit::broker, health::get,
                new Throughput(Clock.systemUTC()), LIMIT)), "/inbox/*");
        server.setHandler(context);
        server.start();
        base = "http://127.0.0.1:" + ((ServerConnector) server.getConnectors()[0]).getLocalPort() + "/app/inbox";
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
        if (kit != null) {
            kit.close();
        }
    }

    record Payload(String text) {}

    HttpResponse<String> send(String method, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).method(method,
                HttpRequest.BodyPublishers.noBody()).header(ConsoleServlet.API_HEADER, "1").build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Before, the pages could be framed by any site (a Retry or a Delete clicked through it), errors too. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/", "/queues/console", "/api/queues", "/api/health", "/nowhere", "/api/nowhere",
            "/queues/no%20such"})
    void everyAnswerForbidsFramingAndSniffing(String path) throws Exception {
        HttpResponse<String> answer = send("GET", path);
        assertThat(answer.headers().firstValue("X-Frame-Options")).contains("DENY");
        assertThat(answer.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
        assertThat(answer.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(policy -> assertThat(
                policy).contains("frame-ancestors 'none'", "default-src 'none'", "form-action 'self'"));
    }

    /** The pages' own style sheet is the one the policy lets through (by its hash), and the pages hold no script. */
    @Test
    void thePolicyAllowsThePagesOwnStyleAndNothingElse() throws Exception {
        String page = send("GET", "/").body();
        String style = page.substring(page.indexOf("<style>") + "<style>".length(), page.indexOf("</style>"));
        String hash = java.util.Base64.getEncoder().encodeToString(java.security.MessageDigest.getInstance("SHA-256")
                .digest(style.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertThat(send("GET", "/").headers().firstValue("Content-Security-Policy").orElseThrow())
                .contains("style-src 'sha256-" + hash + "'");
        assertThat(page).doesNotContain("<script", "style=\"", "<img");
    }

    /** Before, TRACE echoed the request back, its Authorization header and session cookie too. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"TRACE", "PUT", "PATCH", "OPTIONS"})
    void aMethodTheConsoleDoesNotUseIs405(String method) throws Exception {
        for (String path : List.of("/", "/api/queues")) {
            HttpResponse<String> answer = send(method, path);
            assertThat(answer.statusCode()).as(method + " " + path).isEqualTo(405);
            assertThat(answer.headers().firstValue("Allow")).contains("GET, HEAD, POST, DELETE");
            assertThat(answer.headers().firstValue("X-Frame-Options")).contains("DENY");
            assertThat(answer.body()).contains("the console answers GET, HEAD, POST, DELETE, not " + method)
                    .doesNotContain(ConsoleServlet.API_HEADER);
        }
        assertThat(send("HEAD", "/").statusCode()).isEqualTo(200);
    }

    /**
     * Before, the API's list held every payload whole (limit=1000 of 2 MB each: 2 GB of JSON), and
     * no page showed one dead letter. Now the list holds heads and lengths, and a letter's page and
     * API read as much as the console's limit, escaped.
     */
    @Test
    void aDeadLetterIsListedByItsHeadAndShownToTheLimitOnItsOwnPage() throws Exception {
        String text = "<b>" + "x".repeat(20_000);
        kit.publisher("console", Payload.class).publish(new Payload(text));
        kit.publisher("console", Payload.class).publish(new Payload("small"));
        kit.awaitCount(DEAD, 2);
        String list = send("GET", "/api/queues/console/dead-letters").body();
        assertThat(list.length()).as("two heads, not a whole payload").isLessThan(6_000);
        assertThat(list).contains("\"payloadLength\":" + ("{\"text\":\"" + text + "\"}").length());
        long big = kit.broker().deadLetters("console", 10).stream().filter(d -> d.payloadCut()).findFirst()
                .orElseThrow().id() instanceof Number n ? n.longValue() : -1;
        long small = kit.broker().deadLetters("console", 10).stream().filter(d -> !d.payloadCut()).findFirst()
                .orElseThrow().id() instanceof Number n ? n.longValue() : -1;

        String queuePage = send("GET", "/queues/console").body();
        assertThat(queuePage).contains("<a href=\"/app/inbox/queues/console/dead-letters/" + big + "\">" + big + "</a>",
                "20,014 bytes in all");
        HttpResponse<String> page = send("GET", "/queues/console/dead-letters/" + big);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("X-Frame-Options")).contains("DENY");
        assertThat(page.body()).contains("{&quot;text&quot;:&quot;&lt;b&gt;xxx", "id=\"payload-cut\"",
                "The first 5,000 characters of 20,014 bytes", ConfigKeys.CONSOLE_PAYLOAD_LIMIT, "no use", "/retry\"")
                .doesNotContain("<b>");
        assertThat(page.body().length()).as("the limit's characters, not the payload's").isLessThan(8_000);
        assertThat(send("GET", "/queues/console/dead-letters/" + small).body())
                .contains("{&quot;text&quot;:&quot;small&quot;}").doesNotContain("payload-cut", "id=\"last-error\"");

        HttpResponse<String> one = send("GET", "/api/queues/console/dead-letters/" + big);
        assertThat(one.body()).contains("\"payloadLength\":20014", "\"payloadCut\":true", "x".repeat(4_988))
                .doesNotContain("x".repeat(4_989)); // 12 characters before them
        assertThat(send("GET", "/api/queues/console/dead-letters/" + small).body()).contains("\"payloadCut\":false");
        HttpResponse<String> gone = send("GET", "/api/queues/console/dead-letters/999");
        assertThat(gone.statusCode()).isEqualTo(404);
        assertThat(gone.body()).contains("has no dead letter 999");
    }

    /**
     * A dead letter's page and API show why its last attempt failed, class, message and frames,
     * escaped and without the password; before, the page had only the one line of {@code error}.
     */
    @Test
    void aDeadLettersPageAndApiShowItsLastError() throws Exception {
        kit.publisher("console", Payload.class).publish(new Payload("throws"));
        kit.awaitCount(DEAD, 1);
        Object id = kit.broker().deadLetters("console", 1).get(0).id();

        String page = send("GET", "/queues/console/dead-letters/" + id).body();
        assertThat(page).contains("<h2>Last error</h2><pre id=\"last-error\">java.lang.IllegalStateException:"
                + " &lt;i&gt;card declined&lt;/i&gt; for jdbc:postgresql://db/app?password=***\n\tat ")
                .doesNotContain("<i>", "s3cret");
        assertThat(send("GET", "/api/queues/console/dead-letters/" + id).body()).contains("\"lastError\":\""
                + "java.lang.IllegalStateException: <i>card declined</i> for jdbc:postgresql://db/app?password=***"
                + "\\n\\tat ").doesNotContain("s3cret");
        assertThat(send("GET", "/api/queues/console/dead-letters").body()).contains("\"lastError\":\"java.lang");
    }

    /** The health checks keep a failing queue's table and error to themselves; the console's administrators read them. */
    @Test
    void theConsolesHealthSaysWhatIsWrongInFull() throws Exception {
        String problem = "queue console: claiming from table console_jobs has failed 3 times: no such table";
        health.set(new BrokerHealth(true, List.of(new QueueHealth("console", false, true, false, problem)), ""));
        HttpResponse<String> answer = send("GET", "/api/health");
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.body()).contains("\"ready\":false", "\"live\":true",
                "\"readiness\":{\"queue console\":\"" + problem + "\"}", "\"liveness\":{\"queue console\":\"UP\"}");
    }
}
