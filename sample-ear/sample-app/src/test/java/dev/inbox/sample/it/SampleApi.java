package dev.inbox.sample.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** The sample's REST API at {@code base} (http://127.0.0.1:9080/sample/api on Liberty, :8080 on WildFly). */
final class SampleApi {
    private final String base;
    /**
     * HTTP/1.1: over HTTP/2 (which the JDK's client reaches by an h2c upgrade where the server offers
     * it, as Payara does) the client waits to send the rest of a body the server refused unread, and
     * a 2 MiB post answered 413 at once timed out; curl gets the same 413 over HTTP/2 at once.
     */
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    SampleApi(String base) {
        this.base = base;
    }

    /**
     * Waits until {@code url} answers 200 (the sample's {@code /queues}, or another application's
     * page). The first request initialises REST and JSON-B: on a loaded machine it outlasts 30 s, and
     * giving up on it only queues another behind it.
     */
    void awaitAnswer(String url) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(240).toNanos();
        String last = "nothing";
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(url))
                        .timeout(Duration.ofSeconds(120)).GET().build(), HttpResponse.BodyHandlers.ofString());
                if (answer.statusCode() == 200) {
                    return;
                }
                last = answer.statusCode() + " " + answer.body();
            } catch (IOException e) {
                last = e.toString(); // not listening yet
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException(url + " did not answer within 240 s (last: " + last + ")");
    }

    /** Waits until the sample answers with its queues: Inbox has started. */
    void awaitSample() throws InterruptedException {
        awaitAnswer(base + "/queues");
    }

    /** The body of the sample's answer to {@code GET path}; for conditions awaited. */
    String body(String path) {
        try {
            return get(path).body();
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return getAt(base + path);
    }

    /** {@code GET url}, a page of the server outside the sample (its health endpoints, another application). */
    HttpResponse<String> getAt(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Posts a body of {@code bytes} bytes (a JSON string of that length), as a careless client might. */
    HttpResponse<String> postLarge(String path, int bytes) throws IOException, InterruptedException {
        return post(path, "\"" + "x".repeat(bytes - 2) + "\"");
    }

    /** Posts an empty body to {@code url} (another application's); returns the status. */
    int postTo(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).statusCode();
    }
}
