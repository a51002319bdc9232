package beam.node;

import beam.cluster.ActorRecord;
import beam.cluster.ProcessContext;
import java.util.List;
import java.util.Map;

/**
 * What a node needs to start one actor's worker process. Built by the head from the
 * actor's record, and sent as {@code start_actor} when the actor lives on another node.
 *
 * @param logToOwner whether the owner wants the actor's stdout/stderr forwarded
 */
public record SpawnSpec(String actorId, String className, List<String> gpuIds, Map<String, String> envVars,
                        ProcessContext context, boolean logToOwner) {
    public static SpawnSpec of(ActorRecord actor, List<String> gpuIds) {
        return new SpawnSpec(actor.id(), actor.className(), gpuIds, actor.options().envVars(),
                actor.owner().processContext(), actor.owner().logToDriver());
    }
}
