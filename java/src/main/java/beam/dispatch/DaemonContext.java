package beam.dispatch;

import beam.cluster.Cluster;
import beam.codec.FrameLimits;
import beam.metrics.UserMetrics;

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
    FrameLimits limits();

    /** The ray.util.metrics values of this node's processes (the {@code metrics} op). */
    UserMetrics userMetrics();

    /** A driver said hello here: a node that will run actors soon (fills its worker pool). */
    default void driverConnected() {
    }

    /** The drivers connected to this daemon, local or relayed ({@code ray stack} dumps them). */
    ConnectedDrivers drivers();

    /** Starts the daemon's shutdown (after the reply is sent). */
    void requestShutdown();
}
