package beam.cluster;

import beam.util.DeviceTelemetry;
import beam.util.HostFacts;
import java.util.List;
import java.util.Map;

/**
 * One node as it was at a moment, for views: its resources copied under the cluster lock.
 *
 * @param rttMicros the last heartbeat round trip to its daemon, or -1 (the head's own node, or none yet)
 * @param labels    Ray's node labels, its id among them
 * @param facts     what the node reported about its host
 * @param telemetry its accelerators' last utilization and memory sample ({@link DeviceTelemetry#NONE} if none)
 */
public record NodeSnapshot(String id, String ip, String hostname, boolean head, boolean alive, String deathReason,
                           Resources total, Resources available, Map<String, NodeAccelerator> accelerators,
                           List<String> gpuIds, Map<String, String> labels, long startedMillis, long rttMicros, HostFacts facts,
                           DeviceTelemetry telemetry) {
}
