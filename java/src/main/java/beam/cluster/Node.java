package beam.cluster;

import beam.util.DeviceTelemetry;
import beam.util.HostFacts;
import java.util.List;
import java.util.Map;

/**
 * One member of the cluster and its resources.
 *
 * <p>Membership state machine:
 * <pre>
 *   ALIVE --leaves, or its link is lost (Cluster.onNodeLost)--> DEAD
 * </pre>
 * ALIVE from registration ({@link Cluster#addNode}); DEAD is final: a node that comes back
 * registers as a new node with a new id. Its resources leave the cluster totals when it
 * dies. Fields are guarded by the {@link Cluster} lock; so are the accessors of the ones that
 * change, but for the heartbeat's round trip (volatile, see {@link #heardRtt}).
 */
public final class Node {
    final String id;
    final String ip;
    final String hostname;
    final boolean head;
    final Resources total;
    final Resources available;
    /** Device ids of each accelerator resource, their kind (vendor) and model. */
    final Map<String, NodeAccelerator> accelerators;
    final NodeDevices devices;
    final List<String> gpuIds;
    /** Its labels (Ray's node labels): its id as ray.io/node-id, the defaults and the user's, fixed at its join. */
    final Map<String, String> labels;
    final NodeControl link;
    /** When it joined, wall millis on the cluster's clock: set by {@link Cluster#addNode}. */
    long startedMillis;
    boolean alive = true;
    String deathReason = "";
    /**
     * Last heartbeat round trip to this node's daemon, or -1 (the head's own node, or none
     * yet). Written by the node's link reader without the cluster lock: a pong must never
     * wait behind a long pass under that lock, or the frames behind it on the same link
     * (the node's pings) are not read and the node is declared lost.
     */
    private volatile long rttMicros = -1;
    /** What the node reported about its host (versions, interfaces, accelerators, ports); replaced, never changed. */
    HostFacts facts = HostFacts.NONE;
    /** Its accelerators' last utilization and memory sample; replaced, never changed. */
    DeviceTelemetry telemetry = DeviceTelemetry.NONE;

    public Node(String id, String ip, String hostname, boolean head, Resources total,
                Map<String, NodeAccelerator> accelerators, NodeControl link) {
        this(id, ip, hostname, head, total, accelerators, Map.of(), link);
    }

    /** {@code labels}: what the node reported (defaults and the user's); its id is added here. */
    public Node(String id, String ip, String hostname, boolean head, Resources total,
                Map<String, NodeAccelerator> accelerators, Map<String, String> labels, NodeControl link) {
        this.id = id;
        this.labels = Labels.ofNode(id, labels);
        this.ip = ip;
        this.hostname = hostname;
        this.head = head;
        this.total = total;
        this.available = total.copy();
        this.accelerators = Map.copyOf(accelerators);
        this.gpuIds = NodeAccelerator.gpuIds(accelerators);
        this.devices = NodeDevices.whole(accelerators);
        this.link = link;
    }

    public String id() {
        return id;
    }

    public String ip() {
        return ip;
    }

    public String hostname() {
        return hostname;
    }

    public boolean isHead() {
        return head;
    }

    public boolean alive() {
        return alive;
    }

    public String deathReason() {
        return deathReason;
    }

    public Resources total() {
        return total;
    }

    public Resources available() {
        return available;
    }

    public Map<String, NodeAccelerator> accelerators() {
        return accelerators;
    }

    public Map<String, String> labels() {
        return labels;
    }

    public List<String> gpuIds() {
        return gpuIds;
    }

    public long startedMillis() {
        return startedMillis;
    }

    public long rttMicros() {
        return rttMicros;
    }

    /** A heartbeat round trip to this node took {@code micros} (any thread, no lock). */
    public void heardRtt(long micros) {
        rttMicros = micros;
    }

    /** What the node reported about its host, as it stands (read with the cluster lock held). */
    public HostFacts facts() {
        return facts;
    }

    /** Its accelerators' last sample (read with the cluster lock held). */
    public DeviceTelemetry telemetry() {
        return telemetry;
    }

    /** This node as it is now, its resources and facts copied (call with the cluster lock held). */
    NodeSnapshot snapshot() {
        return new NodeSnapshot(id, ip, hostname, head, alive, deathReason, total.copy(), available.copy(), accelerators,
                gpuIds, labels, startedMillis, rttMicros, facts, telemetry);
    }

    /** This node with the facts it reported at its join. */
    public Node withFacts(HostFacts facts) {
        this.facts = facts;
        return this;
    }
}
