package beam.cluster;

import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything the daemon knows about one actor.
 *
 * <p>Its {@link State} machine is drawn once, on {@link ActorLifecycle}, which makes every
 * transition but the start ({@link ActorScheduler}). Fields are guarded by the {@link Cluster} lock.
 */
public final class ActorRecord {
    public enum State { PENDING, STARTING, ALIVE, DEAD }

    final String id;
    final String className;
    final String name;
    final String namespace;
    final Client owner;
    final ActorOptions options;
    final byte[] createPayload;
    State state = State.PENDING;
    Node node;
    Bundle bundle;
    PlacementGroup group;
    Resources held;
    Map<String, Map<String, Long>> devicesHeld = NodeDevices.NONE;
    /** Device ids this actor was given, per accelerator resource (Ray's get_accelerator_ids()). */
    Map<String, List<String>> deviceIds = Map.of();
    Client worker;
    long pid;
    boolean processGone;
    /** Its worker's connection has closed: every frame it sent (its last results) has been handled. */
    boolean workerClosed;
    /** Its process exited while its connection was still open: applied once the connection closes. */
    WorkerExit pendingExit;
    /** The head ended it because no handle to it was left: a clean exit then reads as that. */
    boolean endedUnheld;
    String deathMessage;
    /** It died because it could never be placed: its calls fail with Ray's ActorUnschedulableError. */
    boolean unschedulable;
    /** While PENDING outside a group: why no node of the cluster as it is can ever hold it, or null if one could. */
    String waitingReason;
    /** Ray's repr_name: repr() of the instance when its class defines __repr__, told by its worker when ready. */
    String reprName = "";
    /** Calls waiting for it to be ALIVE, in arrival order. */
    final ArrayDeque<ActorCall> queued = new ArrayDeque<>();
    /** Calls sent to its worker and not answered, in the order sent: the first max_concurrency of them run. */
    final LinkedHashMap<String, ActorCall> inFlight = new LinkedHashMap<>();
    /** When its last result came back: when the call behind it began (see {@link ActorCall#startedMillis}). */
    long lastResultMillis;
    /** The clients that called this actor while it is in the table, or null before the first call ({@link ActorIndex}). */
    Set<Client> callers;
    /** The client of the last call, which the call path checks before {@link #callers}. */
    Client lastCaller;

    ActorRecord(String id, String className, String name, String namespace, Client owner, ActorOptions options,
                byte[] createPayload) {
        this.id = id;
        this.className = className;
        this.name = name;
        this.namespace = namespace;
        this.owner = owner;
        this.options = options;
        this.createPayload = createPayload;
    }

    public String id() {
        return id;
    }

    public String className() {
        return className;
    }

    public String namespace() {
        return namespace;
    }

    public ActorOptions options() {
        return options;
    }

    public Client owner() {
        return owner;
    }

    public String groupId() {
        return group == null ? null : group.id;
    }

    public List<String> gpuIds() {
        return deviceIds.getOrDefault("GPU", List.of());
    }

    public Map<String, List<String>> deviceIds() {
        return deviceIds;
    }

    public String nodeId() {
        return node == null ? null : node.id;
    }

    public String nodeIp() {
        return node == null ? null : node.ip;
    }

    public int bundleIndex() {
        return bundle == null ? -1 : bundle.index;
    }

    /** This actor as it is now, for views; call with the cluster lock held. */
    public ActorSnapshot snapshot() {
        return new ActorSnapshot(id, className, name, state, pid, nodeId(), nodeIp(), deviceIds, groupId(), bundleIndex(),
                options.request(), state == State.DEAD ? deathMessage : null, owner.jobId(), namespace, options.detached(),
                state == State.PENDING ? waitingReason : null, runningCall(), reprName);
    }

    /** Fails a call of {@code caller} to this dead actor with the error of how it died. */
    void failCall(Client caller, String oid) {
        tombstone().failCall(caller, oid);
    }

    /** How it ended, kept once the record leaves the table. */
    Tombstone tombstone() {
        return new Tombstone(deathMessage, unschedulable);
    }

    /** The oldest call it runs now, or null when it runs none. */
    CallSnapshot runningCall() {
        if (state != State.ALIVE || inFlight.isEmpty()) return null;
        return inFlight.values().iterator().next().snapshot(this, CallSnapshot.State.RUNNING);
    }

    /** Its calls not ended, oldest first, at most {@code max}. */
    void liveCalls(java.util.List<CallSnapshot> out, int max) {
        for (ActorCall c : queued) {
            if (out.size() >= max) return;
            if (c.caller != null) out.add(c.snapshot(this, CallSnapshot.State.WAITING_FOR_ACTOR));
        }
        int i = 0;
        for (ActorCall c : inFlight.values()) {
            if (out.size() >= max) return;
            out.add(c.snapshot(this, i++ < options.maxConcurrency() ? CallSnapshot.State.RUNNING : CallSnapshot.State.QUEUED));
        }
    }

    /** The create_actor payload: cloudpickle of (cls, args, kwargs), opaque here. */
    public byte[] createPayload() {
        return createPayload;
    }
}
