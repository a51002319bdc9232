package beam.cluster;

import java.util.List;
import java.util.Map;

/**
 * One actor as it was at a moment, for views (the actor table, its recent deaths): plain
 * values that stay as they were when the record moves on, without its calls or payload.
 *
 * @param deviceIds     device ids per accelerator resource (Ray's get_accelerator_ids())
 * @param deathMessage  null unless the actor is DEAD
 * @param waitingReason null unless the actor is PENDING and no node of the cluster as it is could ever hold it
 * @param runningCall   the oldest call it runs now (its name and label, since when), or null when idle
 * @param reprName      the instance's repr() when its class defines __repr__ (Ray's repr_name), else ""
 */
public record ActorSnapshot(String id, String className, String name, ActorRecord.State state, long pid,
                            String nodeId, String nodeIp, Map<String, List<String>> deviceIds, String groupId,
                            int bundleIndex, Resources request, String deathMessage, String jobId, String namespace,
                            boolean detached, String waitingReason, CallSnapshot runningCall,
                            String reprName) {
    public List<String> gpuIds() {
        return deviceIds.getOrDefault("GPU", List.of());
    }
}
