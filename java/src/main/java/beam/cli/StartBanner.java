package beam.cli;

import beam.auth.TokenAuth;
import beam.http.HttpConfig;

/** What {@code ray start} prints once its daemon serves: Ray's "next steps" banner and where the HTTP face listens. */
final class StartBanner {
    private StartBanner() {
    }

    /** Where the HTTP face will listen (it binds a moment after this, docs/HTTP.md). */
    static void http(HttpConfig http, boolean isHead) {
        if (http == null) return;
        String host = http.host().equals("0.0.0.0") ? "127.0.0.1" : http.host();
        if (isHead && http.includeDashboard()) {
            System.out.println("  The dashboard: " + (http.dashboardPort() == 0 ? "on the port named in node.json (http_ports)"
                    : "http://" + host + ":" + http.dashboardPort()));
        }
        System.out.println("  Health probes on port " + (http.agentPort() == 0 ? "(see node.json)" : http.agentPort())
                + ", Prometheus metrics on " + (http.metricsPort() == 0 ? "the port in node.json" : "port " + http.metricsPort())
                + (http.loopbackOnly() ? "" : " (beyond loopback: Authorization: Bearer <cluster token>)"));
        System.out.flush();
    }

    static void nextSteps(String ip, String address, String sessionDir, boolean foreground, boolean isHead,
                          boolean authDisabled) {
        System.out.println("Local node IP: " + ip);
        System.out.println("--------------------");
        System.out.println("beam runtime started (session " + sessionDir + ").");
        System.out.println("--------------------");
        System.out.println("Next steps");
        if (isHead) {
            System.out.println("  To add another node to this cluster, copy the cluster token to it and run there:");
            if (authDisabled) {
                System.out.println("    ray start --address='" + address + "'");
            } else {
                System.out.println("    RAY_AUTH_TOKEN=$(cat " + sessionDir + "/" + TokenAuth.TOKEN_FILE + ") ray start --address='"
                        + address + "'");
                System.out.println("  (the token is in " + sessionDir + "/" + TokenAuth.TOKEN_FILE
                        + ", readable only by you; RAY_AUTH_TOKEN_PATH=<file> works too)");
            }
        } else {
            System.out.println("  This node joined the cluster whose head is " + address + ".");
        }
        System.out.println("  To connect to this cluster from Python on this machine:");
        System.out.println("    import ray");
        System.out.println("    ray.init()");
        System.out.println("  To see the status of the cluster:");
        System.out.println("    ray status");
        System.out.println("  To terminate the beam runtime on this machine, run");
        System.out.println("    ray stop");
        if (foreground) System.out.println("--block: the daemon runs in the foreground; Ctrl-C or `ray stop` ends it.");
        System.out.flush();
    }
}
