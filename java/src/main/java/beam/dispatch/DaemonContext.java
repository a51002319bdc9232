package beam.dispatch;

import beam.cluster.Cluster;

/** What a client session needs from the daemon that accepted it. */
public interface DaemonContext {
    Cluster cluster();

    String nodeId();

    String nodeIp();

    String sessionDir();

    String gcsAddress();

    /** A fresh job id (hex) for a new driver connection. */
    String nextJobId();

    /** Frame size limits, reported to clients in the hello reply. */
    beam.codec.FrameLimits limits();

    /** What the head node reported about itself (versions, interfaces, GPUs). */
    com.fasterxml.jackson.databind.node.ObjectNode headFacts();

    /** The ray.util.metrics values of this node's processes (the {@code metrics} op). */
    beam.metrics.UserMetrics userMetrics();

    /** Starts the daemon's shutdown (after the reply is sent). */
    void requestShutdown();
}
