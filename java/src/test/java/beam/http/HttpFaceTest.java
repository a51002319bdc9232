package beam.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The HTTP face on real sockets: methods, paths, the token beyond loopback, errors without stack traces. */
class HttpFaceTest {
    private static final String TOKEN = "0123456789abcdef0123456789abcdef";
    private final HttpClient client = HttpClient.newHttpClient();
    private HttpFace face;
    private volatile String problem;

    private List<Route> routes() {
        return List.of(new Route("/api/local_raylet_healthz", true, q -> problem == null
                        ? Route.Reply.text(200, "success") : Route.Reply.text(503, "unhealthy: " + problem)),
                new Route("/data", false, q -> Route.Reply.text(200, "n=" + Query.integer(q, "n", 1, 1, 10))),
                new Route("/boom", false, q -> {
                    throw new IllegalStateException("secret internals " + TOKEN);
                }));
    }

    private int start(String host) throws Exception {
        face = new HttpFace(new HttpConfig(host, 0, 0, 0, true), TOKEN, Map.of("agent", new HttpFace.Face(0, routes())));
        return face.ports().get("agent");
    }

    @AfterEach
    void stop() {
        if (face != null) face.close();
    }

    private HttpResponse<String> get(int port, String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        if (headers.length > 0) b.headers(headers);
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void healthSaysSuccessThen503WithTheReason() throws Exception {
        int port = start("127.0.0.1");
        assertThat(get(port, "/api/local_raylet_healthz").body()).isEqualTo("success");
        problem = "lost the head at 10.0.0.1:6379 (no heartbeat for 3000 ms)";
        HttpResponse<String> r = get(port, "/api/local_raylet_healthz");
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body()).contains("lost the head").doesNotContain("success");
    }

    @Test
    void onLoopbackNothingAsksForTheToken() throws Exception {
        int port = start("127.0.0.1");
        assertThat(get(port, "/data?n=3").body()).isEqualTo("n=3");
    }

    @Test
    void beyondLoopbackAllButHealthNeedTheBearerToken() throws Exception {
        int port = start("0.0.0.0");
        assertThat(get(port, "/api/local_raylet_healthz").statusCode()).isEqualTo(200);
        HttpResponse<String> refused = get(port, "/data");
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(refused.body()).contains("Authorization: Bearer").doesNotContain(TOKEN);
        assertThat(get(port, "/data", "Authorization", "Bearer wrong").statusCode()).isEqualTo(401);
        assertThat(get(port, "/data", "Authorization", "Basic " + TOKEN).statusCode()).isEqualTo(401);
        assertThat(get(port, "/data", "Authorization", "Bearer " + TOKEN).body()).isEqualTo("n=1");
    }

    @Test
    void badRequestsAre4xxWithAMessage() throws Exception {
        int port = start("127.0.0.1");
        HttpResponse<String> post = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/data"))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
        assertThat(get(port, "/data?n=99").statusCode()).isEqualTo(400);
        assertThat(get(port, "/data?n=99").body()).contains("'n'").contains("1..10");
        assertThat(HttpFace.query("n=%zz")).containsEntry("", null); // refused: Query.check answers 400
        assertThat(get(port, "/data?" + "a=b&".repeat(2000)).statusCode()).isEqualTo(400);
        assertThat(get(port, "/datax").statusCode()).isEqualTo(404);
    }

    @Test
    void aFailingHandlerIsA500WithoutItsInternals() throws Exception {
        int port = start("127.0.0.1");
        HttpResponse<String> r = get(port, "/boom");
        assertThat(r.statusCode()).isEqualTo(500);
        assertThat(r.body()).contains("internal error").doesNotContain("secret").doesNotContain("at beam.")
                .doesNotContain(TOKEN);
    }

    @Test
    void garbageOnTheSocketGetsA4xxAndTheFaceKeepsServing() throws Exception {
        int port = start("127.0.0.1");
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream out = s.getOutputStream();
            out.write("\u0000\u0001 NOT HTTP\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            String answer = new String(in.readNBytes(12), StandardCharsets.ISO_8859_1);
            assertThat(answer).startsWith("HTTP/1.1 4");
        }
        assertThat(get(port, "/api/local_raylet_healthz").body()).isEqualTo("success");
    }

    private static String raw(int port, String request) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    @Test
    void onLoopbackARequestForAnotherHostNameIsRefusedButTheProbes() throws Exception {
        int port = start("127.0.0.1");
        assertThat(raw(port, "GET /data HTTP/1.1\r\nHost: rebind.attacker.example\r\nConnection: close\r\n\r\n"))
                .startsWith("HTTP/1.1 403").contains("unexpected Host header");
        assertThat(raw(port, "GET /api/local_raylet_healthz HTTP/1.1\r\nHost: rebind.attacker.example\r\n"
                + "Connection: close\r\n\r\n")).startsWith("HTTP/1.1 200");
        for (String host : new String[] {"localhost:" + port, "127.0.0.1", "[::1]:" + port, "LOCALHOST"}) {
            assertThat(raw(port, "GET /data HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n"))
                    .as(host).startsWith("HTTP/1.1 200");
        }
    }

    @Test
    void facesOnTheSamePortShareIt() throws Exception {
        int free;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            free = probe.getLocalPort();
        }
        face = new HttpFace(new HttpConfig("127.0.0.1", free, free, 0, true), null, new java.util.LinkedHashMap<>(Map.of(
                "agent", new HttpFace.Face(free, routes()),
                "dashboard", new HttpFace.Face(free, List.of(new Route("/other", false, q -> Route.Reply.text(200, "o")))))));
        assertThat(face.ports()).containsEntry("agent", free).containsEntry("dashboard", free);
        assertThat(get(free, "/other").body()).isEqualTo("o");
        assertThat(get(free, "/api/local_raylet_healthz").body()).isEqualTo("success");
    }
}
