package beam.views;

import beam.cluster.ActorHistory;
import beam.cluster.ActorRecord;
import beam.cluster.ActorSnapshot;
import beam.cluster.Cluster;
import beam.cluster.Node;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The head's side of {@code ray logs} and the dashboard's log tail: finds the node that holds
 * the file (the actor's node, the node with that IP, else the head, as Ray's CLI defaults) and
 * asks it to read ({@code logs}) or list ({@code log_files}); node/NodeLogs answers on
 * every node, the head's own included. A file is only ever read by the node that wrote it.
 * Blocks its caller for at most {@link #ASK_WAIT_SECONDS}.
 */
public final class ClusterLogs {
    /** How long the head waits for a node to read a log file before it names the node as not answering. */
    public static final long ASK_WAIT_SECONDS = 10;
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private ClusterLogs() {
    }

    /**
     * What to read: exactly one of {@code actorId}, {@code pid} (&gt; 0) and {@code glob};
     * {@code nodeIp} or {@code nodeId} (both null: the actor's node, or the head) names the node; {@code offset} &ge; 0 for what
     * was written after it (follow), else the last {@code lines} lines.
     */
    public record Ask(String actorId, long pid, String glob, String nodeIp, String nodeId, boolean stderr, int lines,
                      long offset) {
    }

    /** A request that cannot be answered, with an HTTP-like status: 400 bad input, 404 nothing there, 503 a node did not answer. */
    public static final class Refused extends Exception {
        private final int status;

        public Refused(int status, String message) {
            super(message);
            this.status = status;
        }

        public int status() {
            return status;
        }
    }

    /**
     * The answer: a text ({@code {node_id, node_ip, file, text, offset, truncated}} and, for an
     * actor, {@code actor_state} and {@code death_message}), or for a glob that does not match
     * exactly one file, the listing {@code {node_id, node_ip, files: [{name, size}]}}.
     */
    public static ObjectNode read(Cluster cluster, Ask ask) throws Refused {
        ActorSnapshot actor = null;
        Node node;
        ObjectNode args = F.objectNode();
        args.put("stream", ask.stderr() ? "err" : "out");
        args.put("lines", ask.lines());
        if (ask.offset() >= 0) args.put("offset", ask.offset());
        if (ask.actorId() != null) {
            actor = findActor(cluster, ask.actorId());
            if (actor == null) {
                throw new Refused(404, "Actor ID " + ask.actorId() + " not found: no such actor in this cluster (it "
                        + "never existed, or died long ago); `ray list actors` names the actors there are");
            }
            if (actor.nodeId() == null || actor.pid() <= 0) {
                throw new Refused(404, "actor " + ask.actorId() + " has no process yet (state " + actor.state()
                        + "): it writes no log until it is placed on a node");
            }
            node = nodeById(cluster, actor.nodeId());
            args.put("actor_id", ask.actorId());
        } else if (ask.pid() > 0) {
            node = named(cluster, ask);
            if (node == null) node = nodeOfPid(cluster, ask.pid());
            args.put("pid", ask.pid());
        } else {
            node = named(cluster, ask);
            if (node == null) node = head(cluster);
            JsonNode listed = answer(node, "log_files", F.objectNode().put("glob", ask.glob() == null ? "*" : ask.glob()));
            if (listed.path("files").size() != 1) {
                ObjectNode out = located(node);
                out.set("files", listed.path("files"));
                out.put("truncated", listed.path("truncated").asBoolean());
                return out;
            }
            args.put("file", listed.path("files").get(0).path("name").asText());
        }
        ObjectNode out = located(node);
        out.setAll((ObjectNode) answer(node, "logs", args));
        if (actor != null) {
            ActorSnapshot now = findActor(cluster, actor.id()); // after the read: a death seen here follows the last text
            out.put("actor_state", now == null ? ActorRecord.State.DEAD.name() : now.state().name());
            if (now != null && now.deathMessage() != null) out.put("death_message", now.deathMessage());
        }
        return out;
    }

    private static ObjectNode located(Node node) {
        ObjectNode out = F.objectNode();
        out.put("node_id", node.id());
        out.put("node_ip", node.ip());
        return out;
    }

    /** The node's answer, or Refused naming the node when it failed, refused or did not answer in time. */
    private static JsonNode answer(Node node, String kind, ObjectNode args) throws Refused {
        String who = "node " + node.ip() + " (" + node.id() + ")";
        if (!node.alive()) throw new Refused(503, who + " is dead (" + node.deathReason() + "): only its own daemon reads its log files, and it is gone");
        JsonNode result;
        try {
            result = node.ask(kind, args).get(ASK_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new Refused(503, who + " did not answer the log read in " + ASK_WAIT_SECONDS + " s");
        } catch (ExecutionException e) {
            throw new Refused(503, who + " could not read its logs: " + e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Refused(503, "interrupted while waiting for " + who);
        }
        if (!(result instanceof ObjectNode o)) throw new Refused(503, who + " answered the log read with no object");
        if (o.has("error")) throw new Refused(o.path("error").asText().startsWith("no ") ? 404 : 400, o.path("error").asText());
        return o;
    }

    /**
     * The actor as it is now. A follow asks this four times a second: the table is walked
     * under the lock without copying it, and the whole snapshot (for the recent deaths) is
     * made only for an actor that is not in the table any more.
     */
    private static ActorSnapshot findActor(Cluster cluster, String actorId) {
        synchronized (cluster) {
            for (ActorRecord a : cluster.actors()) if (a.id().equals(actorId)) return a.snapshot();
        }
        for (ActorHistory.Death d : cluster.snapshot().recentDeaths()) if (d.actor().id().equals(actorId)) return d.actor();
        return null;
    }

    private static List<ActorSnapshot> actorsWithPid(Cluster cluster, long pid) {
        List<ActorSnapshot> found = new ArrayList<>();
        synchronized (cluster) {
            for (ActorRecord a : cluster.actors()) {
                if (a.nodeId() == null) continue;
                ActorSnapshot s = a.snapshot();
                if (s.pid() == pid) found.add(s);
            }
        }
        return found;
    }

    private static List<Node> nodes(Cluster cluster) {
        synchronized (cluster) {
            return new ArrayList<>(cluster.nodes());
        }
    }

    private static Node head(Cluster cluster) throws Refused {
        for (Node n : nodes(cluster)) if (n.isHead()) return n;
        throw new Refused(503, "the cluster has no head node yet");
    }

    private static Node nodeById(Cluster cluster, String nodeId) throws Refused {
        for (Node n : nodes(cluster)) if (n.id().equals(nodeId)) return n;
        throw new Refused(404, "no node " + nodeId + " in this cluster (`ray list nodes` names its nodes)");
    }

    /** The node the ask names by IP or id, or null when it names none. */
    private static Node named(Cluster cluster, Ask ask) throws Refused {
        if (ask.nodeId() != null) {
            Node n = nodeById(cluster, ask.nodeId());
            if (ask.nodeIp() != null && !n.ip().equals(ask.nodeIp())) {
                throw new Refused(400, "node " + ask.nodeId() + " has IP " + n.ip() + ", not " + ask.nodeIp()
                        + ": give one of --node-id and --node-ip");
            }
            return n;
        }
        return ask.nodeIp() != null ? nodeByIp(cluster, ask.nodeIp()) : null;
    }

    private static Node nodeByIp(Cluster cluster, String ip) throws Refused {
        List<String> ips = new ArrayList<>();
        Node dead = null;
        for (Node n : nodes(cluster)) {
            if (n.ip().equals(ip) && n.alive()) return n;
            if (n.ip().equals(ip)) dead = n;
            if (n.alive()) ips.add(n.ip());
        }
        if (dead != null) return dead; // answer() says it is dead, and why
        throw new Refused(404, "no node with IP " + ip + " in this cluster; its nodes have IPs " + ips
                + " (`ray list nodes`)");
    }

    /** The node of the actor with that pid, if exactly one node has one; else the head (Ray's default). */
    private static Node nodeOfPid(Cluster cluster, long pid) throws Refused {
        List<String> nodeIds = new ArrayList<>();
        for (ActorSnapshot a : actorsWithPid(cluster, pid)) if (!nodeIds.contains(a.nodeId())) nodeIds.add(a.nodeId());
        if (nodeIds.size() > 1) {
            List<String> ips = new ArrayList<>();
            for (String id : nodeIds) ips.add(nodeById(cluster, id).ip());
            throw new Refused(400, "pid " + pid + " runs an actor on more than one node " + ips + ": say which with --node-ip");
        }
        return nodeIds.isEmpty() ? head(cluster) : nodeById(cluster, nodeIds.get(0));
    }
}
