package beam.link;

import beam.cluster.ActorRecord;
import beam.cluster.Cluster;
import beam.cluster.NodeLink;
import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameException;
import beam.connection.Connection;
import beam.dispatch.DaemonContext;
import beam.dispatch.FrameSink;
import beam.dispatch.Origin;
import beam.dispatch.Session;
import beam.node.SpawnSpec;
import beam.views.VersionCheck;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * The head's end of one joined node's link. It is that node's {@link NodeLink} (actor
 * starts and kills go down as {@code start_actor} / {@code kill_actor}), and it hosts a
 * {@link Session} for every client of that node (drivers and actor workers), whose frames
 * arrive tagged with a client id. The node's process events come up as link ops.
 *
 * <p>Threads: {@link #run()} reads on the connection's thread, in order; sends
 * never wait (Connection). {@code clients} is concurrent because the cluster pushes from any thread.
 */
public final class MemberLink implements NodeLink {
    private static final Logger LOG = Logger.getLogger(MemberLink.class.getName());

    private final Connection connection;
    private final DaemonContext daemon;
    private final Cluster cluster;
    private final String nodeId;
    private final String nodeIp;
    private final Origin origin;
    private final Heartbeat heartbeat;
    private final Heartbeat.LastSeen lastSeen = new Heartbeat.LastSeen();
    private final Map<Long, Session> clients = new ConcurrentHashMap<>();
    private final AtomicBoolean lost = new AtomicBoolean();
    private final Map<Long, CompletableFuture<JsonNode>> probes = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong nextProbe = new java.util.concurrent.atomic.AtomicLong();

    private final Pulse pulse;

    MemberLink(Connection connection, DaemonContext daemon, String nodeId, String nodeIp, String sessionDir,
               Heartbeat heartbeat, Pulse pulse) {
        this.pulse = pulse;
        this.connection = connection;
        this.daemon = daemon;
        this.cluster = daemon.cluster();
        this.nodeId = nodeId;
        this.nodeIp = nodeIp;
        this.origin = new Origin(nodeId, nodeIp, sessionDir);
        this.heartbeat = heartbeat;
    }

    /** Reads the link until it closes, then declares the node lost (unless it left cleanly). */
    void run() {
        pulse.add(this::beat);
        String reason = "its beam daemon's connection closed (the daemon or its host died)";
        try {
            Frame frame;
            while ((frame = connection.read()) != null) {
                lastSeen.touch();
                if (LinkOps.isRelayed(frame)) relay(frame);
                else if (handleOp(frame)) {
                    reason = null;
                    break;
                }
            }
        } catch (FrameException e) {
            reason = "its link sent a malformed frame (" + e.getMessage() + ")";
        } catch (IOException e) {
            reason = "its link failed (" + e.getMessage() + ")";
        } finally {
            declareLost(reason == null ? "it left the cluster (`ray stop` on that node)" : reason);
        }
    }

    private void relay(Frame frame) {
        long cid = LinkOps.cid(frame);
        Session session = clients.get(cid);
        if (session != null) session.onFrame(LinkOps.untag(frame));
    }

    /** Handles a link op; returns true when the node left cleanly. */
    private boolean handleOp(Frame frame) {
        ObjectNode h = frame.header();
        String actorId = h.path("actor_id").asText("");
        switch (frame.op()) {
            case "ping" -> { }
            case "pong" -> { // the answer to our ping, carrying the time we sent it
                long sent = h.path("t").asLong(0);
                if (sent != 0) cluster.onNodeRtt(nodeId, Math.max(0, (System.nanoTime() - sent) / 1_000));
            }
            case "node_facts" -> {
                h.remove("op");
                cluster.onNodeFacts(nodeId, h);
            }
            case "client_open" -> {
                long cid = h.path("client").asLong();
                clients.put(cid, new Session(sinkFor(cid), daemon, origin));
            }
            case "client_close" -> {
                Session s = clients.remove(h.path("client").asLong());
                if (s != null) s.onClosed();
            }
            case "actor_started" -> cluster.onActorProcessStarted(actorId, h.path("pid").asLong());
            case "actor_start_failed" -> cluster.onActorStartFailed(actorId, h.path("detail").asText());
            case "actor_exited" -> {
                List<String> tail = new ArrayList<>();
                h.path("tail").forEach(t -> tail.add(t.asText()));
                cluster.onActorExited(actorId, h.path("code").asInt(), tail, h.path("oom_kills").asLong());
            }
            case "actor_log" -> {
                h.put("op", "log");
                cluster.onActorLog(actorId, frame);
            }
            case "node_versions" -> VersionCheck.record(cluster, nodeId, h.path("versions"), daemon.headFacts());
            case "probe_result" -> {
                CompletableFuture<JsonNode> f = probes.get(h.path("probe_id").asLong());
                if (f != null) f.complete(h.path("results"));
            }
            case "node_leave" -> {
                return true;
            }
            default -> LOG.warning("node " + nodeIp + " sent unknown link op '" + frame.op() + "'");
        }
        return false;
    }

    private FrameSink sinkFor(long cid) {
        return new FrameSink() {
            @Override
            public void send(Frame frame) {
                connection.send(LinkOps.tag(frame, cid));
            }

            @Override
            public void close() {
                connection.send(LinkOps.clientEvent("client_close", cid));
            }
        };
    }

    /**
     * One heartbeat ({@link Pulse}): declare the node lost after too long a silence, else ping it.
     * The loss is handled on a thread of its own, so the shared clock keeps pinging the others.
     */
    private boolean beat() {
        if (lost.get()) return false;
        long silent = lastSeen.silentMillis();
        if (silent > heartbeat.timeoutMillis()) {
            Thread.ofVirtual().name("node lost " + nodeIp).start(() -> {
                declareLost("it sent no heartbeat for " + silent + " ms (the host died or its network was cut)");
                connection.close();
            });
            return false;
        }
        connection.send(LinkOps.ping());
        return true;
    }

    private void declareLost(String reason) {
        if (!lost.compareAndSet(false, true)) return;
        LOG.warning("node " + nodeIp + " (" + nodeId + ") is lost: " + reason);
        connection.close();
        Session.allClosed(cluster, new ArrayList<>(clients.values()));
        clients.clear();
        probes.values().forEach(f -> f.complete(com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.arrayNode()));
        cluster.onNodeLost(nodeId, reason);
    }

    // ------------------------------------------------------------------ NodeLink

    @Override
    public void startActor(ActorRecord actor, java.util.Map<String, List<String>> deviceIds) {
        SpawnSpec spec = SpawnSpec.of(actor, deviceIds);
        ObjectNode h = LinkOps.op("start_actor").header();
        h.put("actor_id", spec.actorId());
        h.put("class_name", spec.className());
        h.set("accelerator_ids", FrameCodec.json().valueToTree(deviceIds));
        h.set("env_vars", FrameCodec.json().valueToTree(spec.envVars()));
        if (spec.context() != null) h.set("context", FrameCodec.json().valueToTree(spec.context()));
        h.put("log_to_owner", spec.logToOwner());
        h.put("omp_threads", spec.ompThreads());
        connection.send(new Frame(h));
    }

    @Override
    public CompletableFuture<JsonNode> probe(JsonNode targets) {
        long id = nextProbe.incrementAndGet();
        CompletableFuture<JsonNode> result = new CompletableFuture<>();
        probes.put(id, result);
        ObjectNode h = LinkOps.op("probe").header();
        h.put("probe_id", id);
        h.set("targets", targets);
        connection.send(new Frame(h));
        return result.whenComplete((r, e) -> probes.remove(id));
    }

    @Override
    public void killActor(ActorRecord actor) {
        ObjectNode h = LinkOps.op("kill_actor").header();
        h.put("actor_id", actor.id());
        connection.send(new Frame(h));
    }
}
