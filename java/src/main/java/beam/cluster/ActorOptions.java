package beam.cluster;

import java.util.List;
import java.util.Map;

/**
 * The scheduling and runtime options of {@code create_actor}, validated.
 *
 * @param request        what the actor holds while it lives (CPU, GPU, custom), fixed-point
 * @param groupId        placement group id or null
 * @param bundleIndex    bundle inside the group, or -1 for any
 * @param envVars        runtime_env env_vars, set before the class is unpickled
 * @param runtimeEnv     the runtime_env as given, passed through to the worker for the actor's context
 * @param maxConcurrency threads (or coroutines) running calls at once
 * @param isAsync        any method is {@code async def}
 * @param detached       lifetime="detached": survives its owner
 * @param affinity       NodeAffinitySchedulingStrategy, or null
 * @param spread         the "SPREAD" scheduling strategy: the live node holding fewest actors first
 * @param labelSelector  Ray's label_selector (and NodeLabelSchedulingStrategy's hard expressions): only nodes
 *                       whose labels match may hold it ({@link LabelSelector#NONE}: any)
 * @param preferredLabels NodeLabelSchedulingStrategy's soft expressions: nodes whose labels match are tried first
 */
public record ActorOptions(Resources request, String groupId, int bundleIndex, Map<String, String> envVars,
                           RuntimeEnv runtimeEnv, int maxConcurrency, boolean isAsync, boolean detached,
                           List<String> methods, NodeAffinity affinity, boolean spread, LabelSelector labelSelector,
                           LabelSelector preferredLabels) {
    public ActorOptions {
        if (labelSelector == null) labelSelector = LabelSelector.NONE;
        if (preferredLabels == null) preferredLabels = LabelSelector.NONE;
    }

    /** Options without a label selector. */
    public ActorOptions(Resources request, String groupId, int bundleIndex, Map<String, String> envVars,
                        RuntimeEnv runtimeEnv, int maxConcurrency, boolean isAsync, boolean detached,
                        List<String> methods, NodeAffinity affinity, boolean spread) {
        this(request, groupId, bundleIndex, envVars, runtimeEnv, maxConcurrency, isAsync, detached, methods, affinity,
                spread, LabelSelector.NONE, LabelSelector.NONE);
    }

    /** Options with the default scheduling strategy. */
    public ActorOptions(Resources request, String groupId, int bundleIndex, Map<String, String> envVars,
                        RuntimeEnv runtimeEnv, int maxConcurrency, boolean isAsync, boolean detached,
                        List<String> methods) {
        this(request, groupId, bundleIndex, envVars, runtimeEnv, maxConcurrency, isAsync, detached, methods, null, false,
                LabelSelector.NONE, LabelSelector.NONE);
    }
}
