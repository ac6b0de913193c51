package dev.inbox.sample.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/** Inbox's console API in the sample ({@code /sample/inbox/api}), as a user of the server's registry. */
final class ConsoleApi {
    static final String BASE = "http://127.0.0.1:9080/sample/inbox";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String authorization;

    /** As {@code user}; null for no credentials at all. */
    ConsoleApi(String user, String password) {
        this.authorization = user == null ? null : "Basic " + Base64.getEncoder()
                .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send(request(path).GET());
    }

    /** A console action: POST with the header the API asks for, unless {@code header} is false. */
    HttpResponse<String> post(String path, boolean header) throws IOException, InterruptedException {
        HttpRequest.Builder request = request(path).POST(HttpRequest.BodyPublishers.noBody());
        return send(header ? request.header("X-Inbox-Console", "1") : request);
    }

    HttpResponse<String> delete(String path) throws IOException, InterruptedException {
        return send(request(path).header("X-Inbox-Console", "1").DELETE());
    }

    /** {@code method url} with this user's credentials and no body: a page of the console, or any of the server's. */
    HttpResponse<String> at(String method, String url) throws IOException, InterruptedException {
        return send(requestTo(url).method(method, HttpRequest.BodyPublishers.noBody()));
    }

    /** The body of {@code GET path}, for conditions awaited. */
    String body(String path) {
        try {
            return get(path).body();
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private HttpRequest.Builder request(String path) {
        return requestTo(BASE + path);
    }

    private HttpRequest.Builder requestTo(String url) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
        return authorization == null ? request : request.header("Authorization", authorization);
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
