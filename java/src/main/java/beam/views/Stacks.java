package beam.views;

import beam.cluster.ActorRecord;
import beam.cluster.ActorSnapshot;
import beam.cluster.CallSnapshot;
import beam.cluster.Cluster;
import beam.cluster.ClusterSnapshot;
import beam.cluster.NodeSnapshot;
import beam.cluster.RequestException;
import beam.codec.FrameCodec;
import beam.util.NodeQuestion.DumpStacks;
import beam.util.NodeQuestion.DumpedStacks;
import beam.util.NodeQuestion.StackDump;
import beam.util.NodeQuestion.StackTarget;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * {@code ray stack}: the Python stack of every actor process and driver the cluster knows,
 * narrowed by node IP, actor id or pid. The head picks the processes from its snapshot and
 * the drivers connected to it, asks each node that runs some of them for their dumps (the
 * {@link DumpStacks} node question, answered by beam.node.StackDumps), and merges the answers
 * under a header per process. Nodes answer in parallel; one that has not answered within
 * {@link #NODE_ANSWER_MS} is listed by name and IP, so the whole answer stays under 5 s.
 */
public final class Stacks {
    /** How long a node may take to dump its processes (each gets StackDumps' 3 s). */
    public static final long NODE_ANSWER_MS = 4000;

    /** A driver connected to the cluster, on the node it runs on. */
    public record Driver(long pid, String nodeId, String nodeIp, String jobId) {
    }

    /** What to narrow to; null / 0 for no narrowing. */
    public record Filter(String nodeIp, String actorId, long pid) {
    }

    /** Asks one node for dumps; the future fails when it cannot answer. */
    public interface NodeAsker {
        CompletableFuture<DumpedStacks> ask(NodeSnapshot node, DumpStacks question);
    }

    private Stacks() {
    }

    /** Asks the cluster's live node of that id, over its link (the head's own in process). */
    public static NodeAsker askerOf(Cluster cluster) {
        return (node, question) -> cluster.ask(node.id(), question);
    }

    /**
     * The call {@code actor} runs now, for its header: {@code Class.method(label) for 312 s},
     * or null when it runs none.
     */
    static String runningCall(ActorSnapshot actor, long nowMillis) {
        CallSnapshot c = actor.runningCall();
        if (c == null) return null;
        String label = c.label() == null ? "" : "(\"" + c.label() + "\")";
        long since = c.startMillis() > 0 ? Math.max(0, nowMillis - c.startMillis()) / 1000 : -1;
        return c.name() + label + (since >= 0 ? " for " + since + " s" : "");
    }

    /** The processes to dump, their headers and stacks, and the nodes that did not answer. */
    public static ObjectNode run(ClusterSnapshot snapshot, List<Driver> drivers, Filter filter, NodeAsker asker)
            throws RequestException {
        Map<String, NodeSnapshot> live = new LinkedHashMap<>();
        for (NodeSnapshot n : snapshot.nodes()) if (n.alive()) live.put(n.id(), n);
        check(snapshot, drivers, filter, live);
        Map<String, List<ObjectNode>> byNode = new LinkedHashMap<>();
        long now = System.currentTimeMillis();
        for (ActorSnapshot a : snapshot.actors()) {
            if (a.pid() <= 0 || a.state() == ActorRecord.State.DEAD || !live.containsKey(a.nodeId())) continue;
            if (!wanted(filter, a.nodeIp(), a.pid()) || filter.actorId() != null && !filter.actorId().equals(a.id())) {
                continue;
            }
            ObjectNode h = header("actor", a.pid(), a.nodeId(), a.nodeIp()).put("class_name", a.className())
                    .put("actor_id", a.id()).put("state", a.state().name());
            if (a.name() != null && !a.name().isEmpty()) h.put("name", a.name());
            String call = runningCall(a, now);
            if (call != null) h.put("call", call);
            byNode.computeIfAbsent(a.nodeId(), k -> new ArrayList<>()).add(h);
        }
        if (filter.actorId() == null) {
            for (Driver d : drivers) {
                if (d.pid() <= 0 || !live.containsKey(d.nodeId()) || !wanted(filter, d.nodeIp(), d.pid())) continue;
                byNode.computeIfAbsent(d.nodeId(), k -> new ArrayList<>())
                        .add(header("driver", d.pid(), d.nodeId(), d.nodeIp()).put("job_id", d.jobId()));
            }
        }
        Map<String, CompletableFuture<Answer>> answers = new LinkedHashMap<>();
        byNode.forEach((nodeId, rows) -> answers.put(nodeId, ask(asker, live.get(nodeId), rows)));
        ObjectNode out = FrameCodec.json().createObjectNode();
        ArrayNode processes = out.putArray("processes");
        ArrayNode silent = out.putArray("nodes_not_answering");
        byNode.forEach((nodeId, rows) -> {
            NodeSnapshot node = live.get(nodeId);
            Answer answer = answers.get(nodeId).join();
            String failure = answer.failure();
            if (failure != null) silent.addObject().put("node_id", nodeId).put("node_ip", node.ip())
                    .put("hostname", node.hostname()).put("error", failure);
            List<StackDump> dumps = failure != null ? List.of() : answer.dumps().processes();
            for (int i = 0; i < rows.size(); i++) {
                ObjectNode row = rows.get(i);
                StackDump dump = i < dumps.size() ? dumps.get(i) : null;
                if (failure != null) row.put("error", "its node did not answer: " + failure);
                else if (dump != null && dump.stack() != null && dump.pid() == row.path("pid").asLong()) {
                    row.put("stack", dump.stack());
                } else row.put("error", dump != null && dump.error() != null ? dump.error() : "its node's answer did not include it");
                processes.add(row);
            }
        });
        return out;
    }

    /** Refuses a filter that names nothing the cluster knows, saying what it does know. */
    private static void check(ClusterSnapshot snapshot, List<Driver> drivers, Filter filter,
                              Map<String, NodeSnapshot> live) throws RequestException {
        if (filter.nodeIp() != null && live.values().stream().noneMatch(n -> n.ip().equals(filter.nodeIp()))) {
            throw RequestException.value("--node-ip " + filter.nodeIp() + ": no live node has that IP; the cluster's nodes are "
                    + live.values().stream().map(NodeSnapshot::ip).collect(Collectors.joining(", ")));
        }
        if (filter.actorId() != null && snapshot.actors().stream().noneMatch(a -> a.id().equals(filter.actorId()))) {
            throw RequestException.value("--actor-id " + filter.actorId() + ": no such actor (ray list actors shows their ids)");
        }
        if (filter.pid() != 0 && snapshot.actors().stream().noneMatch(a -> a.pid() == filter.pid())
                && drivers.stream().noneMatch(d -> d.pid() == filter.pid())) {
            throw RequestException.value("--pid " + filter.pid() + ": no actor process or connected driver has that pid;"
                    + " ray stack only signals processes beam started or that connected to it (ray list actors shows their pids)");
        }
    }

    private static boolean wanted(Filter filter, String nodeIp, long pid) {
        return (filter.nodeIp() == null || filter.nodeIp().equals(nodeIp)) && (filter.pid() == 0 || filter.pid() == pid);
    }

    private static ObjectNode header(String role, long pid, String nodeId, String nodeIp) {
        return FrameCodec.json().createObjectNode().put("role", role).put("pid", pid)
                .put("node_id", nodeId).put("node_ip", nodeIp);
    }

    /** One node's dumps, or why there are none. */
    private record Answer(DumpedStacks dumps, String failure) {
    }

    /** One node's answer, or its failure: never fails, never waits past NODE_ANSWER_MS. */
    private static CompletableFuture<Answer> ask(NodeAsker asker, NodeSnapshot node, List<ObjectNode> rows) {
        List<StackTarget> targets = new ArrayList<>();
        for (ObjectNode r : rows) targets.add(new StackTarget(r.get("pid").asLong(), r.get("role").asText().equals("actor")));
        Answer timedOut = new Answer(null,
                "node " + node.hostname() + " (" + node.ip() + ") did not answer within " + NODE_ANSWER_MS + " ms");
        CompletableFuture<DumpedStacks> asked;
        try {
            asked = asker.ask(node, new DumpStacks(targets, DumpStacks.MAX_WAIT_MILLIS));
        } catch (RuntimeException e) {
            asked = CompletableFuture.failedFuture(e);
        }
        return asked.thenApply(d -> new Answer(d, null))
                .completeOnTimeout(timedOut, NODE_ANSWER_MS, TimeUnit.MILLISECONDS)
                .exceptionally(e -> new Answer(null, (e.getCause() != null ? e.getCause() : e).getMessage()));
    }
}
