package beam.http;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** What the head's HTTP routes read of the cluster. */
public interface HeadView {
    /** The cluster's status view (shared, read-only; at most a few hundred ms old). */
    ObjectNode status();

    /** The last {@code lines} lines actor {@code actorId} printed, or null if none reached the head. */
    String actorLog(String actorId, int lines);
}
