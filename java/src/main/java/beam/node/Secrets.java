package beam.node;

import java.util.List;
import java.util.Map;

/**
 * The daemon's credentials, which stay in the daemon: a worker process runs user code, and
 * its environment ends up in logs, crash reports and whatever that code prints. The cluster
 * token lets anyone who has it join the cluster and run code on every node, so neither it
 * nor the path of the file it is in may reach an actor; the TLS variables name this node's
 * private key. Workers talk to their daemon over the unix socket and need none of them.
 */
public final class Secrets {
    /** Environment variables a worker never inherits from its daemon. */
    public static final List<String> VARIABLES = List.of(
            "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_TLS_SERVER_CERT", "RAY_TLS_SERVER_KEY", "RAY_TLS_CA_CERT");

    private Secrets() {
    }

    /** Removes every credential from {@code env} (a worker's environment, before it starts). */
    public static void strip(Map<String, String> env) {
        for (String name : VARIABLES) env.remove(name);
    }
}
