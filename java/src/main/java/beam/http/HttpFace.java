package beam.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A node's HTTP face: one JDK {@link HttpServer} per port (agent, dashboard, metrics; faces
 * given the same port share one), GET and HEAD only, each request on a virtual thread.
 *
 * <p>Safety: a face bound beyond loopback answers only its open routes (the health probes)
 * without {@code Authorization: Bearer <cluster token>}; the token is compared in constant
 * time and never written into a response. A handler's failure is a 500 with a one-line
 * message (the stack trace goes to the daemon's log only). No route changes anything.
 */
public final class HttpFace implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(HttpFace.class.getName());
    /** Connections open at once over all ports; more wait in the kernel's backlog. */
    public static final int MAX_CONNECTIONS = 2048;
    /** Seconds a client may take to send its request: a slow one is cut off, not waited for. */
    static final int MAX_REQUEST_SECONDS = 10;
    static final int MAX_QUERY_CHARS = 4096;
    private static final int BACKLOG = 512;

    static {
        // read once when the JDK's server classes load: set before the first HttpServer
        setDefault("sun.net.httpserver.maxReqTime", String.valueOf(MAX_REQUEST_SECONDS));
        setDefault("sun.net.httpserver.maxRspTime", "60");
        setDefault("sun.net.httpserver.maxReqHeaders", "64");
        setDefault("jdk.httpserver.maxConnections", String.valueOf(MAX_CONNECTIONS));
    }

    private final byte[] token; // null: every route is open (loopback only, or auth disabled)
    /** On loopback: the Host names a request may carry (null: any), against DNS rebinding. */
    private final java.util.Set<String> hosts;
    private final List<HttpServer> servers = new ArrayList<>();
    private final Map<String, Integer> ports = new LinkedHashMap<>();
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    /**
     * Binds every face in {@code faces} (name to its port and routes). {@code token}: the
     * cluster token, asked for unless {@code config} binds loopback only; null when token
     * auth is disabled.
     */
    public HttpFace(HttpConfig config, String token, Map<String, Face> faces) throws IOException {
        this.token = config.loopbackOnly() || token == null ? null : token.trim().getBytes(StandardCharsets.UTF_8);
        this.hosts = config.loopbackOnly() ? new java.util.HashSet<>(java.util.List.of("localhost", "127.0.0.1", "[::1]",
                config.host().toLowerCase(java.util.Locale.ROOT))) : null;
        Map<Integer, HttpServer> byPort = new LinkedHashMap<>();
        try {
            for (Map.Entry<String, Face> e : faces.entrySet()) {
                Face face = e.getValue();
                HttpServer server = face.port() != 0 ? byPort.get(face.port()) : null;
                if (server == null) {
                    server = bind(config.host(), face.port(), e.getKey());
                    if (face.port() != 0) byPort.put(face.port(), server);
                }
                for (Route r : face.routes()) server.createContext(r.path(), ex -> serve(ex, r));
                ports.put(e.getKey(), server.getAddress().getPort());
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
        servers.forEach(HttpServer::start);
    }

    /** The port and routes of one face. */
    public record Face(int port, List<Route> routes) {
    }

    private HttpServer bind(String host, int port, String face) throws IOException {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(host, port), BACKLOG);
            server.setExecutor(executor);
            servers.add(server);
            return server;
        } catch (java.net.BindException e) {
            throw new IOException("cannot listen on " + host + ":" + port + " for the " + face + " ("
                    + e.getMessage() + "); pick another port with its flag, or 0 for any free port");
        }
    }

    /** Face name to the port it listens on (the chosen one where 0 was asked). */
    public Map<String, Integer> ports() {
        return ports;
    }

    private void serve(HttpExchange ex, Route route) {
        try (ex) {
            Route.Reply reply = answer(ex, route);
            var headers = ex.getResponseHeaders();
            headers.set("Content-Type", reply.contentType());
            headers.set("Cache-Control", "no-store");
            headers.set("X-Content-Type-Options", "nosniff");
            headers.set("X-Frame-Options", "DENY");
            headers.set("Referrer-Policy", "no-referrer");
            headers.set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'");
            boolean head = ex.getRequestMethod().equals("HEAD");
            ex.sendResponseHeaders(reply.status(), head ? -1 : reply.body().length == 0 ? -1 : reply.body().length);
            if (!head && reply.body().length > 0) {
                try (OutputStream out = ex.getResponseBody()) {
                    out.write(reply.body());
                }
            }
        } catch (IOException e) {
            LOG.fine(() -> "HTTP client went away: " + e.getMessage());
        }
    }

    private Route.Reply answer(HttpExchange ex, Route route) {
        String method = ex.getRequestMethod();
        if (!method.equals("GET") && !method.equals("HEAD")) {
            ex.getResponseHeaders().set("Allow", "GET, HEAD");
            return Route.Reply.text(405, method + " is not allowed: beam's HTTP face only reads (GET, HEAD)\n");
        }
        String path = ex.getRequestURI().getRawPath();
        // createContext matches prefixes; a route is its path, with or without one trailing slash
        if (!path.equals(route.path()) && !path.equals(route.path() + "/")) {
            return Route.Reply.text(404, "no such path: " + clip(path) + " (the dashboard is at /)\n");
        }
        if (!route.open() && !hostAllowed(ex.getRequestHeaders().getFirst("Host"))) {
            // a web page the user visits could point its own name at 127.0.0.1 and read the
            // answers (DNS rebinding): on loopback only requests made to a loopback name count
            return Route.Reply.text(403, "unexpected Host header '" + clip(ex.getRequestHeaders().getFirst("Host"))
                    + "': this face listens on loopback; use http://127.0.0.1:PORT or http://localhost:PORT\n");
        }
        if (!route.open() && !authorized(ex.getRequestHeaders().getFirst("Authorization"))) {
            ex.getResponseHeaders().set("WWW-Authenticate", "Bearer");
            return Route.Reply.text(401, "this HTTP face is bound beyond loopback: send the cluster token as "
                    + "'Authorization: Bearer <token>' (the head keeps it in <temp-dir>/session_latest/auth_token)\n");
        }
        try {
            return route.handler().handle(query(ex.getRequestURI().getRawQuery()));
        } catch (Route.HttpError e) {
            return Route.Reply.text(e.status(), e.getMessage() + "\n");
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "bug: HTTP " + route.path() + " failed", e);
            return Route.Reply.text(500, "internal error in the beam daemon (" + e.getClass().getSimpleName()
                    + "); its log has the details\n");
        }
    }

    private boolean hostAllowed(String header) {
        if (hosts == null || header == null) return true;
        String h = header.trim().toLowerCase(java.util.Locale.ROOT);
        int colon = h.lastIndexOf(':');
        if (colon > h.lastIndexOf(']')) h = h.substring(0, colon);
        return hosts.contains(h);
    }

    private boolean authorized(String header) {
        if (token == null) return true;
        if (header == null || !header.startsWith("Bearer ")) return false;
        return MessageDigest.isEqual(token, header.substring(7).trim().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The query's parameters: the first of each name under the name, a repeat under name#1,
     * name#2 ... (Ray's filter parameters repeat); a malformed or huge one is a 400 when used.
     */
    static Map<String, String> query(String raw) {
        Map<String, String> out = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) return out;
        if (raw.length() > MAX_QUERY_CHARS) {
            out.put("", null); // marks the query as refused: Params.get reports it
            return out;
        }
        for (String part : raw.split("&")) {
            int eq = part.indexOf('=');
            try {
                String k = URLDecoder.decode(eq < 0 ? part : part.substring(0, eq), StandardCharsets.UTF_8);
                String v = eq < 0 ? "" : URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8);
                String key = k;
                for (int n = 1; out.containsKey(key); n++) key = k + "#" + n;
                out.put(key, v);
            } catch (IllegalArgumentException e) {
                out.put("", null);
                return out;
            }
        }
        return out;
    }

    static String clip(String s) {
        String printable = s.replaceAll("[^\\x20-\\x7e]", "?");
        return printable.length() > 80 ? printable.substring(0, 80) + "..." : printable;
    }

    private static void setDefault(String property, String value) {
        if (System.getProperty(property) == null) System.setProperty(property, value);
    }

    @Override
    public void close() {
        for (HttpServer s : servers) s.stop(0);
        executor.shutdownNow();
    }
}
