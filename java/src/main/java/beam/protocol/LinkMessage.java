package beam.protocol;

import beam.codec.Frame;
import beam.util.DeviceTelemetry;
import beam.util.HostFacts;
import beam.util.NodeQuestion;
import beam.util.ProcessContext;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every message between a joined node and the head (docs/PROTOCOL.md, "Node links"), one
 * record per op, read and written only by {@link LinkCodec}. {@link ToHead} and
 * {@link ToNode} are what each end may receive once joined; each end switches over its type
 * exhaustively, so an op cannot be added to one end and forgotten at the other. The
 * handshake ({@link Challenge}, {@link Join}, {@link JoinAnswer}) comes before either.
 */
public sealed interface LinkMessage {
    /** What the head reads from a joined node. */
    sealed interface ToHead extends LinkMessage {
    }

    /** What a joined node reads from the head. */
    sealed interface ToNode extends LinkMessage {
    }

    // ------------------------------------------------------------------ handshake

    /** The head's first frame on every connection; {@code tokenRequired}: the join must answer the nonce. */
    record Challenge(String nonce, int proto, boolean tokenRequired) implements LinkMessage {
    }

    /**
     * A node's first frame. Read leniently (absent fields are null, -1 or empty), because the
     * head checks them itself in the order that refuses a stranger before it reads any more
     * (link/HeadGate). {@code resources}: the node's resource amounts by name (the head checks
     * the amounts); when they are no object of numbers they are empty and {@code badResources}
     * says why, for the head to refuse the join with once the token is proven. The kinds of
     * {@code accelerators} are checked by the head ({@code cluster/NodeAccelerator.of}; null
     * when the node sent something other than an object).
     * {@code labels}: the node's labels but its id (a label that is not text is left out here
     * and its syntax is checked by the head). {@code facts}: its host as it found it at start.
     */
    record Join(long rid, int proto, String auth, String nodeId, String nodeIp, String hostname, String sessionDir,
                Map<String, Double> resources, String badResources, Map<String, HostFacts.Accelerator> accelerators,
                Map<String, String> labels, HostFacts facts) implements LinkMessage {
        public Join {
            resources = resources == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(resources));
            if (accelerators != null) accelerators = Collections.unmodifiableMap(new LinkedHashMap<>(accelerators));
            labels = labels == null ? Map.of() : Map.copyOf(labels);
            if (facts == null) facts = HostFacts.NONE;
        }
    }

    /** The head's answer to a join (or to any first frame it refuses). */
    sealed interface JoinAnswer extends LinkMessage {
    }

    record Welcome(long rid, String headNodeId, String namespace, long heartbeatMs, long timeoutMs)
            implements JoinAnswer {
    }

    /** The connection closes after it; {@code message} says what was wrong and what to do. */
    record Refused(long rid, String message) implements JoinAnswer {
    }

    // ------------------------------------------------------------------ both ways

    /** A frame of one of the node's clients, without its tag (the codec adds and cuts it). */
    record Relayed(long cid, Frame frame) implements ToHead, ToNode {
    }

    /** The heartbeat; {@code t} is the head's clock (nanos) on the head's pings, null on the node's. */
    record Ping(Long t) implements ToHead, ToNode {
    }

    /** Node to head: the client disconnected; head to node: disconnect it. */
    record ClientClose(long client) implements ToHead, ToNode {
    }

    // ------------------------------------------------------------------ node -> head

    /** The answer to a ping with {@code t}, carrying it back. */
    record Pong(long t) implements ToHead {
    }

    /** The node's HTTP face is bound: its ports by role ({@code metrics}, {@code agent}); op {@code node_facts}. */
    record HttpPorts(Map<String, Integer> ports) implements ToHead {
        public HttpPorts {
            ports = Collections.unmodifiableMap(new LinkedHashMap<>(ports));
        }
    }

    /**
     * The node's latest accelerator sample, every few seconds while its vendor tool runs; op
     * {@code node_facts}. One the head cannot read arrives as a sample whose problem says so.
     */
    record Telemetry(DeviceTelemetry sample) implements ToHead {
    }

    record ClientOpen(long client) implements ToHead {
    }

    record ActorStarted(String actorId, long pid) implements ToHead {
    }

    record ActorStartFailed(String actorId, String detail) implements ToHead {
    }

    /** {@code code}: 128+N for signal N; {@code oomKills}: OOM kills on the node while it ran. */
    record ActorExited(String actorId, int code, List<String> tail, long oomKills) implements ToHead {
    }

    /** An actor's {@code log} frame for its owner, sent on as it is. */
    record ActorLog(String actorId, Frame frame) implements ToHead {
    }

    /** The node's Python-side versions, asked after the join so that start-up does not wait. */
    record NodeVersions(Map<String, String> versions) implements ToHead {
        public NodeVersions {
            versions = Collections.unmodifiableMap(new LinkedHashMap<>(versions)); // a version may be null
        }
    }

    /**
     * The answer to an {@link Ask} with the same id: {@code answer} (of the question's type),
     * or {@code error} saying why there is none.
     */
    record AskAnswer(long askId, NodeQuestion.Answer answer, String error) implements ToHead {
        public AskAnswer {
            if ((answer == null) == (error == null)) throw new IllegalArgumentException("an answer or an error, not both");
        }
    }

    /** The node leaves the cluster (`ray stop`): the head drops it at once, without waiting for a timeout. */
    record NodeLeave() implements ToHead {
    }

    // ------------------------------------------------------------------ head -> node

    /**
     * Start a worker process for an actor placed on the node. {@code context} is the owner's
     * interpreter, working directory and sys.path (null when unknown).
     */
    record StartActor(String actorId, String className, Map<String, List<String>> acceleratorIds,
                      Map<String, String> envVars, ProcessContext context, boolean logToOwner, int ompThreads)
            implements ToNode {
    }

    record KillActor(String actorId) implements ToNode {
    }

    /** A question for the node ({@link NodeQuestion}), answered once by an {@link AskAnswer} with the same id. */
    record Ask(long askId, NodeQuestion<?> question) implements ToNode {
    }

    /**
     * A question of a kind this node does not know (a head of another beam version): the node
     * answers it with an error naming the kind. {@code kind} is a short lower-case name.
     */
    record UnknownAsk(long askId, String kind) implements ToNode {
        public static final java.util.regex.Pattern KIND = java.util.regex.Pattern.compile("[a-z][a-z_]{0,31}");
    }
}
