package beam.http;

import beam.cluster.ClusterSnapshot;

/** What the head's HTTP routes read of the cluster. */
public interface HeadView {
    /** One snapshot of the cluster (shared; at most a few hundred ms old). */
    ClusterSnapshot status();

    /** The last {@code lines} lines actor {@code actorId} printed, or null if none reached the head. */
    String actorLog(String actorId, int lines);

    /** What ray stack --actor-id reports of that actor; a 404 when no such actor is known. */
    com.fasterxml.jackson.databind.JsonNode actorStack(String actorId) throws Route.HttpError;
}
