package beam.http;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Where a node's HTTP face listens: Ray's {@code ray start} flags, with Ray's defaults.
 *
 * @param host             {@code --dashboard-host}: the address every HTTP port binds (loopback
 *                         unless told otherwise, as in Ray; elsewhere all but the health paths
 *                         need the cluster token)
 * @param dashboardPort    {@code --dashboard-port}: the head's dashboard, state API and
 *                         {@code /api/gcs_healthz}
 * @param agentPort        {@code --dashboard-agent-listen-port}: every node's
 *                         {@code /api/local_raylet_healthz} and {@code /api/healthz}
 * @param metricsPort      {@code --metrics-export-port}: every node's Prometheus {@code /metrics}
 * @param includeDashboard {@code --include-dashboard}: false leaves the dashboard port closed
 *                         (the agent and metrics ports still serve)
 *                         <p>Port 0 means any free port; the chosen ones are in node.json.
 */
public record HttpConfig(String host, int dashboardPort, int agentPort, int metricsPort, boolean includeDashboard) {
    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_DASHBOARD_PORT = 8265;
    public static final int DEFAULT_AGENT_PORT = 52365;
    /** Ray's default too: without the flag the metrics agent takes a free port, reported in ray.nodes(). */
    public static final int DEFAULT_METRICS_PORT = 0;

    public HttpConfig {
        if (host == null || host.isBlank()) throw new IllegalArgumentException("--dashboard-host must not be empty");
        check("--dashboard-port", dashboardPort);
        check("--dashboard-agent-listen-port", agentPort);
        check("--metrics-export-port", metricsPort);
    }

    private static void check(String flag, int port) {
        if (port < 0 || port > 65535) throw new IllegalArgumentException(flag + " must be in 0..65535, got " + port);
    }

    /** Every port on any free port (tests that run several clusters at once). */
    public static HttpConfig ephemeral() {
        return new HttpConfig(DEFAULT_HOST, 0, 0, 0, true);
    }

    /** Whether only this machine can connect: then no token is asked for. */
    public boolean loopbackOnly() {
        if (host.equals("localhost")) return true;
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
