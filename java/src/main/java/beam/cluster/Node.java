package beam.cluster;

import java.util.List;

/**
 * One member of the cluster and its resources.
 *
 * <p>Membership state machine: ALIVE from registration until the node leaves or is lost,
 * then DEAD for good (a node that comes back registers as a new node with a new id). Its
 * resources leave the cluster totals when it dies. Fields are guarded by the
 * {@link Cluster} lock.
 */
public final class Node {
    final String id;
    final String ip;
    final String hostname;
    final boolean head;
    final Resources total;
    final Resources available;
    /** Device ids of each accelerator resource, their kind (vendor) and model. */
    final java.util.Map<String, NodeAccelerator> accelerators;
    final NodeDevices devices;
    final List<String> gpuIds;
    final NodeLink link;
    final long startedMillis = System.currentTimeMillis();
    boolean alive = true;
    String deathReason = "";
    /** Last heartbeat round trip to this node's daemon, or -1 (the head's own node, or none yet). */
    long rttMicros = -1;
    /** What the node reported about itself (versions, interfaces, GPUs, probe port). */
    com.fasterxml.jackson.databind.node.ObjectNode facts =
            com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();

    public Node(String id, String ip, String hostname, boolean head, Resources total,
                java.util.Map<String, NodeAccelerator> accelerators, NodeLink link) {
        this.id = id;
        this.ip = ip;
        this.hostname = hostname;
        this.head = head;
        this.total = total;
        this.available = total.copy();
        this.accelerators = java.util.Map.copyOf(accelerators);
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

    public Node withFacts(com.fasterxml.jackson.databind.node.ObjectNode facts) {
        this.facts = facts;
        return this;
    }
}
