package beam.http;

import beam.metrics.NodeMetrics;
import beam.util.Scheduler;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * A node's HTTP face as its daemon starts it: which routes on which port (the agent port's
 * health probes and the metrics port on every node; the dashboard port, with the state
 * API and the page, on the head), bound on a thread of its own a moment after the daemon
 * serves ({@link #START_DELAY_MILLIS}), so that neither {@code ray start} nor the first
 * driver waits for the HTTP server's classes to load.
 */
public final class NodeHttp implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(NodeHttp.class.getName());
    public static final String AGENT = "agent";
    public static final String DASHBOARD = "dashboard";
    public static final String METRICS = "metrics";
    /**
     * How long after the daemon serves the face binds. Loading the HTTP server's classes
     * right away takes CPU from the first driver's connection, which usually comes at once
     * (docs/PERFORMANCE.md, "The HTTP face"); a probe or a scrape a second later finds it up.
     */
    static final long START_DELAY_MILLIS = 1_000;

    private final HttpConfig config;
    private final String token;
    private final Supplier<String> health;
    private final HeadClusterReads head;
    private final NodeMetrics metrics;
    private final Scheduler scheduler;
    private final List<HttpFace> bound = new ArrayList<>(); // guarded by this
    private boolean closed; // guarded by this
    private Scheduler.Timer start; // guarded by this

    /** {@code head}: the cluster's views on the head, null on a joined node. */
    public NodeHttp(HttpConfig config, String token, Supplier<String> health, HeadClusterReads head, NodeMetrics metrics) {
        this(config, token, health, head, metrics, Scheduler.system());
    }

    /** {@code scheduler} times the deferred bind (a manual one in tests). */
    NodeHttp(HttpConfig config, String token, Supplier<String> health, HeadClusterReads head, NodeMetrics metrics,
             Scheduler scheduler) {
        this.scheduler = scheduler;
        this.config = config;
        this.token = token;
        this.health = health;
        this.head = head;
        this.metrics = metrics;
    }

    /**
     * Binds {@link #START_DELAY_MILLIS} from now, on a thread of its own (binding loads the
     * HTTP server's classes: no task for the scheduler's thread), then tells {@code done} each
     * face's port (face name to port) and what could not be bound (null when all was).
     */
    public synchronized void startInBackground(BiConsumer<Map<String, Integer>, String> done) {
        if (closed) return;
        start = scheduler.after(START_DELAY_MILLIS,
                () -> Thread.ofPlatform().daemon().name("http-face").start(() -> bind(done)));
    }

    private void bind(BiConsumer<Map<String, Integer>, String> done) {
        Map<String, Integer> ports = new LinkedHashMap<>();
        List<String> errors = new ArrayList<>();
        // one server per port, each on its own: a busy port leaves the others serving
        for (Map<String, HttpFace.Face> group : byPort(faces()).values()) {
            try {
                HttpFace f = new HttpFace(config, token, group);
                synchronized (this) {
                    if (closed) {
                        f.close();
                        return;
                    }
                    bound.add(f);
                }
                ports.putAll(f.ports());
            } catch (IOException | RuntimeException e) {
                LOG.warning("the HTTP face did not start on every port: " + e.getMessage());
                errors.add(e.getMessage());
            }
        }
        LOG.info("HTTP face on " + config.host() + ": " + ports
                + (config.loopbackOnly() || token == null ? "" : " (token required but for the health probes)"));
        done.accept(ports, errors.isEmpty() ? null : String.join("; ", errors));
    }

    /** Faces grouped by port: faces asked on the same port share it; each on port 0 gets its own. */
    private static Map<Object, Map<String, HttpFace.Face>> byPort(Map<String, HttpFace.Face> faces) {
        Map<Object, Map<String, HttpFace.Face>> groups = new LinkedHashMap<>();
        faces.forEach((name, face) -> groups.computeIfAbsent(face.port() == 0 ? name : (Object) face.port(),
                k -> new LinkedHashMap<>()).put(name, face));
        return groups;
    }

    Map<String, HttpFace.Face> faces() {
        Map<String, HttpFace.Face> faces = new LinkedHashMap<>();
        faces.put(AGENT, new HttpFace.Face(config.agentPort(), Health.agent(health, head != null)));
        if (head != null && config.includeDashboard()) {
            List<Route> routes = new ArrayList<>();
            routes.add(Health.gcs(health));
            routes.addAll(StateApi.routes(head));
            routes.addAll(Dashboard.routes());
            faces.put(DASHBOARD, new HttpFace.Face(config.dashboardPort(), routes));
        }
        faces.put(METRICS, new HttpFace.Face(config.metricsPort(), List.of(new Route("/metrics", false,
                q -> {
                    try {
                        return new Route.Reply(200, NodeMetrics.contentType(), metrics.scrape());
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                }))));
        return faces;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (start != null) start.cancel();
        bound.forEach(HttpFace::close);
    }
}
