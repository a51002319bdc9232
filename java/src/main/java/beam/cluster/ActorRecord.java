package beam.cluster;

import beam.codec.Frame;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything the daemon knows about one actor.
 *
 * <p>State machine (all transitions under the {@link Cluster} lock):
 * <pre>
 *   PENDING  --resources found-->  STARTING  --worker says actor_ready-->  ALIVE
 *      |                              |                                     |
 *      +------------------------------+---> DEAD <--------------------------+
 * </pre>
 * PENDING: waiting for room (its placement group not placed yet, or its bundle or node
 * full). STARTING: resources held, worker process launched, constructor not yet done.
 * Calls that arrive before ALIVE wait in {@link #queued} in arrival order and are sent
 * when the actor becomes ALIVE. DEAD is final: the constructor raised, the process exited,
 * it was killed, its owner went away, its placement group was removed or its node was
 * lost. Entering DEAD fails every queued and in-flight call with {@link #deathMessage};
 * resources are returned once the process is gone.
 */
public final class ActorRecord {
    public enum State { PENDING, STARTING, ALIVE, DEAD }

    /** A call waiting to be delivered, or delivered and waiting for its result. */
    record Call(String oid, String method, Frame frame, Client caller) {
    }

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
    String killReason;
    String deathMessage;
    final ArrayDeque<Call> queued = new ArrayDeque<>();
    final LinkedHashMap<String, Client> inFlight = new LinkedHashMap<>();

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

    /** The create_actor payload: cloudpickle of (cls, args, kwargs), opaque here. */
    public byte[] createPayload() {
        return createPayload;
    }
}
