package beam.http;

import beam.cluster.ClusterSnapshot;
import beam.views.ClusterLogs;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** What the head's HTTP routes (dashboard, state API, logs, stacks) read of the cluster; null on a joined node. */
public interface HeadClusterReads {
    /** One snapshot of the cluster (shared; at most a few hundred ms old). */
    ClusterSnapshot status();

    /** A log read by the node that holds the file ({@link ClusterLogs#read}); blocks for at most its bound. */
    ObjectNode log(ClusterLogs.Ask ask) throws ClusterLogs.Refused;

    /** What ray stack --actor-id reports of that actor; a 404 when no such actor is known. */
    com.fasterxml.jackson.databind.JsonNode actorStack(String actorId) throws Route.HttpError;
}
