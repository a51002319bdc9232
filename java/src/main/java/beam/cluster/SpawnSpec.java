package beam.cluster;

import beam.util.ProcessContext;
import java.util.List;
import java.util.Map;

/**
 * What a node needs to start one actor's worker process. Built by the head from the
 * actor's record, and sent as {@code start_actor} when the actor lives on another node.
 *
 * @param deviceIds  device ids per accelerator resource (GPU, NPU, ...) the actor was given
 * @param logToOwner whether the owner wants the actor's stdout/stderr forwarded
 * @param ompThreads OMP_NUM_THREADS for the worker unless its environment sets it: the
 *                   actor's whole CPUs, at least 1, as Ray does (vLLM's actors ask for 0 CPUs,
 *                   so each gets 1 thread instead of one per core fighting over the cores)
 */
public record SpawnSpec(String actorId, String className, Map<String, List<String>> deviceIds,
                        Map<String, String> envVars, ProcessContext context, boolean logToOwner, int ompThreads) {
    public static SpawnSpec of(ActorRecord actor, Map<String, List<String>> deviceIds) {
        int cpus = (int) (actor.options().request().get("CPU") / Resources.UNIT);
        return new SpawnSpec(actor.id(), actor.className(), deviceIds, actor.options().envVars(),
                actor.owner().processContext(), actor.owner().logToDriver(), Math.max(1, cpus));
    }
}
