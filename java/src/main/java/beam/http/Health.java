package beam.http;

import java.util.List;
import java.util.function.Supplier;

/**
 * The health probes, with Ray's paths and bodies: {@code success} and 200 while healthy, 503
 * and the reason when not. KubeRay's default probes grep the body for {@code success}:
 * {@code /api/local_raylet_healthz} on every node's agent port, {@code /api/gcs_healthz} on
 * the head's dashboard port, and (KubeRay for Ray 2.53+) {@code /api/healthz} on the agent port.
 */
final class Health {
    private Health() {
    }

    /** The agent port's probes: this node's daemon ({@code problem}: null while healthy). */
    static List<Route> agent(Supplier<String> problem, boolean head) {
        return List.of(new Route("/api/local_raylet_healthz", true, q -> answer(problem.get())),
                new Route("/api/healthz", true, q -> {
                    String p = problem.get();
                    String gcs = head ? (p == null ? "success" : p) : "success (no local gcs)";
                    return Route.Reply.text(p == null ? 200 : 503, "raylet: " + (p == null ? "success" : p)
                            + "\ngcs: " + gcs + "\n");
                }));
    }

    /** The head's dashboard-port probe: the cluster's state keeper (in beam, the head's daemon). */
    static Route gcs(Supplier<String> problem) {
        return new Route("/api/gcs_healthz", true, q -> answer(problem.get()));
    }

    private static Route.Reply answer(String problem) {
        return problem == null ? Route.Reply.text(200, "success") : Route.Reply.text(503, "unhealthy: " + problem + "\n");
    }
}
