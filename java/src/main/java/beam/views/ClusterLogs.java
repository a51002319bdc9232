package beam.views;

import beam.cluster.ActorRecord;
import beam.cluster.ActorSnapshot;
import beam.cluster.Cluster;
import beam.cluster.NodeSnapshot;
import beam.util.NodeQuestion;
import beam.util.NodeQuestion.ListLogs;
import beam.util.NodeQuestion.LogFile;
import beam.util.NodeQuestion.LogFiles;
import beam.util.NodeQuestion.LogRefused;
import beam.util.NodeQuestion.LogText;
import beam.util.NodeQuestion.ReadLog;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The head's side of {@code ray logs} and the dashboard's log tail: finds the node that holds
 * the file (the actor's node, the node with that IP, else the head, as Ray's CLI defaults) and
 * asks it to read ({@link ReadLog}) or list ({@link ListLogs}); node/NodeLogs answers on
 * every node, the head's own included. A file is only ever read by the node that wrote it.
 * Blocks its caller for at most {@link #ASK_WAIT_SECONDS}. It finds actors and nodes by the
 * cluster's point queries, never holding its lock nor copying the whole cluster: a
 * {@code ray logs --follow} asks four times a second.
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
        String stream = ask.stderr() ? "err" : "out";
        ActorSnapshot actor = null;
        NodeSnapshot node;
        ReadLog question;
        if (ask.actorId() != null) {
            actor = cluster.actor(ask.actorId());
            if (actor == null) {
                throw new Refused(404, "Actor ID " + ask.actorId() + " not found: no such actor in this cluster (it "
                        + "never existed, or died long ago); `ray list actors` names the actors there are");
            }
            if (actor.nodeId() == null || actor.pid() <= 0) {
                throw new Refused(404, "actor " + ask.actorId() + " has no process yet (state " + actor.state()
                        + "): it writes no log until it is placed on a node");
            }
            node = nodeById(cluster, actor.nodeId());
            question = new ReadLog(stream, ask.lines(), ask.offset(), null, ask.actorId(), 0);
        } else if (ask.pid() > 0) {
            node = named(cluster, ask);
            if (node == null) node = nodeOfPid(cluster, ask.pid());
            question = new ReadLog(stream, ask.lines(), ask.offset(), null, null, ask.pid());
        } else {
            node = named(cluster, ask);
            if (node == null) node = head(cluster);
            LogFiles listed = answer(cluster, node, new ListLogs(ask.glob() == null ? "*" : ask.glob()));
            if (listed.error() != null) throw refused(listed.error());
            if (listed.files().size() != 1) {
                ObjectNode out = located(node);
                ArrayNode files = out.putArray("files");
                for (LogFile f : listed.files()) files.addObject().put("name", f.name()).put("size", f.size());
                out.put("truncated", listed.truncated());
                return out;
            }
            question = new ReadLog(stream, ask.lines(), ask.offset(), listed.files().getFirst().name(), null, 0);
        }
        ObjectNode out = located(node);
        switch (answer(cluster, node, question)) {
            case LogRefused r -> throw refused(r.message());
            case LogText t -> out.put("file", t.file()).put("text", t.text()).put("offset", t.offset())
                    .put("truncated", t.truncated());
        }
        if (actor != null) {
            ActorSnapshot now = cluster.actor(actor.id()); // after the read: a death seen here follows the last text
            out.put("actor_state", now == null ? ActorRecord.State.DEAD.name() : now.state().name());
            if (now != null && now.deathMessage() != null) out.put("death_message", now.deathMessage());
        }
        return out;
    }

    private static ObjectNode located(NodeSnapshot node) {
        ObjectNode out = F.objectNode();
        out.put("node_id", node.id());
        out.put("node_ip", node.ip());
        return out;
    }

    /** A node's refusal: 404 when there is no such file ("no ..."), else 400 (the ask was bad). */
    private static Refused refused(String message) {
        return new Refused(message.startsWith("no ") ? 404 : 400, message);
    }

    /** The node's answer, or Refused naming the node when it failed or did not answer in time. */
    private static <A extends NodeQuestion.Answer> A answer(Cluster cluster, NodeSnapshot node, NodeQuestion<A> question)
            throws Refused {
        String who = "node " + node.ip() + " (" + node.id() + ")";
        if (!node.alive()) throw new Refused(503, who + " is dead (" + node.deathReason() + "): only its own daemon reads its log files, and it is gone");
        try {
            return cluster.ask(node.id(), question).get(ASK_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new Refused(503, who + " did not answer the log read in " + ASK_WAIT_SECONDS + " s");
        } catch (ExecutionException e) {
            throw new Refused(503, who + " could not read its logs: " + e.getCause().getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Refused(503, "interrupted while waiting for " + who);
        }
    }

    private static NodeSnapshot head(Cluster cluster) throws Refused {
        for (NodeSnapshot n : cluster.nodeSnapshots()) if (n.head()) return n;
        throw new Refused(503, "the cluster has no head node yet");
    }

    private static NodeSnapshot nodeById(Cluster cluster, String nodeId) throws Refused {
        NodeSnapshot n = cluster.node(nodeId);
        if (n == null) throw new Refused(404, "no node " + nodeId + " in this cluster (`ray list nodes` names its nodes)");
        return n;
    }

    /** The node the ask names by IP or id, or null when it names none. */
    private static NodeSnapshot named(Cluster cluster, Ask ask) throws Refused {
        if (ask.nodeId() != null) {
            NodeSnapshot n = nodeById(cluster, ask.nodeId());
            if (ask.nodeIp() != null && !n.ip().equals(ask.nodeIp())) {
                throw new Refused(400, "node " + ask.nodeId() + " has IP " + n.ip() + ", not " + ask.nodeIp()
                        + ": give one of --node-id and --node-ip");
            }
            return n;
        }
        return ask.nodeIp() != null ? nodeByIp(cluster, ask.nodeIp()) : null;
    }

    private static NodeSnapshot nodeByIp(Cluster cluster, String ip) throws Refused {
        List<String> ips = new ArrayList<>();
        NodeSnapshot dead = null;
        for (NodeSnapshot n : cluster.nodeSnapshots()) {
            if (n.ip().equals(ip) && n.alive()) return n;
            if (n.ip().equals(ip)) dead = n;
            if (n.alive()) ips.add(n.ip());
        }
        if (dead != null) return dead; // answer() says it is dead, and why
        throw new Refused(404, "no node with IP " + ip + " in this cluster; its nodes have IPs " + ips
                + " (`ray list nodes`)");
    }

    /** The node of the actor with that pid, if exactly one node has one; else the head (Ray's default). */
    private static NodeSnapshot nodeOfPid(Cluster cluster, long pid) throws Refused {
        Set<String> nodeIds = cluster.nodesRunningPid(pid);
        if (nodeIds.size() > 1) {
            List<String> ips = new ArrayList<>();
            for (String id : nodeIds) ips.add(nodeById(cluster, id).ip());
            throw new Refused(400, "pid " + pid + " runs an actor on more than one node " + ips + ": say which with --node-ip");
        }
        return nodeIds.isEmpty() ? head(cluster) : nodeById(cluster, nodeIds.iterator().next());
    }
}
