package beam.protocol;

import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.protocol.LinkMessage.ActorExited;
import beam.protocol.LinkMessage.Ask;
import beam.protocol.LinkMessage.AskAnswer;
import beam.protocol.LinkMessage.ActorLog;
import beam.protocol.LinkMessage.ActorStartFailed;
import beam.protocol.LinkMessage.ActorStarted;
import beam.protocol.LinkMessage.Challenge;
import beam.protocol.LinkMessage.ClientClose;
import beam.protocol.LinkMessage.ClientOpen;
import beam.protocol.LinkMessage.Join;
import beam.protocol.LinkMessage.JoinAnswer;
import beam.protocol.LinkMessage.KillActor;
import beam.protocol.LinkMessage.HostFactsUpdate;
import beam.protocol.LinkMessage.NodeLeave;
import beam.protocol.LinkMessage.NodeVersions;
import beam.protocol.LinkMessage.Ping;
import beam.protocol.LinkMessage.Pong;
import beam.protocol.LinkMessage.Refused;
import beam.protocol.LinkMessage.Relayed;
import beam.protocol.LinkMessage.StartActor;
import beam.protocol.LinkMessage.ToHead;
import beam.protocol.LinkMessage.ToNode;
import beam.protocol.LinkMessage.UnknownAsk;
import beam.protocol.LinkMessage.Welcome;
import beam.protocol.Request.BadRequest;
import beam.util.ErrorKind;
import beam.util.ProcessContext;
import beam.util.NodeQuestion;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The one place link frames are written ({@link #encode}) and read ({@link #toHead},
 * {@link #toNode} and the handshake's readers), field by field as docs/PROTOCOL.md lists
 * them. A frame that carries a {@code cid} belongs to a client of the joined node and is
 * {@link Relayed} as it is: a plain call or result carries the tag as its first field, added
 * and cut on the bytes by the codec ({@link Frame#taggedWith}, {@link Frame#linkCid()});
 * other frames carry it in their tree.
 */
public final class LinkCodec {
    private static final String CID = "cid";

    private LinkCodec() {
    }

    public static Frame encode(LinkMessage message) {
        ObjectNode h;
        switch (message) {
            case Relayed r -> {
                return r.frame().taggedWith(r.cid());
            }
            case ActorLog l -> {
                return l.frame();
            }
            case Refused r -> {
                return Frames.error(r.rid(), ErrorKind.CONNECTION_REFUSED, r.message());
            }
            case Challenge c -> {
                h = Frames.header("challenge");
                h.put("nonce", c.nonce());
                h.put("proto", c.proto());
                h.put("auth", c.tokenRequired() ? "token" : "disabled");
            }
            case Join j -> {
                h = Frames.header("join");
                h.put("rid", j.rid());
                h.put("proto", j.proto());
                if (j.auth() != null) h.put("auth", j.auth());
                h.put("node_id", j.nodeId());
                h.put("node_ip", j.nodeIp());
                h.put("hostname", j.hostname());
                h.put("session_dir", j.sessionDir());
                h.set("resources", ResourceJson.write(j.resources()));
                h.set("facts", j.facts());
                h.set("accelerators", j.accelerators());
                ObjectNode labels = h.putObject("labels");
                new TreeMap<>(j.labels()).forEach(labels::put);
            }
            case Welcome w -> {
                h = Frames.ok(w.rid());
                h.put("head_node_id", w.headNodeId());
                h.put("namespace", w.namespace());
                h.put("heartbeat_ms", w.heartbeatMs());
                h.put("timeout_ms", w.timeoutMs());
            }
            case Ping p -> {
                h = Frames.header("ping");
                if (p.t() != null) h.put("t", p.t());
            }
            case Pong p -> {
                h = Frames.header("pong");
                h.put("t", p.t());
            }
            case ClientOpen c -> {
                h = Frames.header("client_open");
                h.put("client", c.client());
            }
            case ClientClose c -> {
                h = Frames.header("client_close");
                h.put("client", c.client());
            }
            case HostFactsUpdate f -> {
                h = Frames.header("node_facts");
                h.setAll(f.facts());
            }
            case ActorStarted a -> {
                h = actorOp("actor_started", a.actorId());
                h.put("pid", a.pid());
            }
            case ActorStartFailed a -> {
                h = actorOp("actor_start_failed", a.actorId());
                h.put("detail", a.detail());
            }
            case ActorExited a -> {
                h = actorOp("actor_exited", a.actorId());
                h.put("code", a.code());
                h.put("oom_kills", a.oomKills());
                ArrayNode tail = h.putArray("tail");
                a.tail().forEach(tail::add);
            }
            case NodeVersions v -> {
                h = Frames.header("node_versions");
                h.set("versions", v.versions());
            }
            case AskAnswer a -> {
                h = Frames.header("node_answer");
                h.put("ask_id", a.askId());
                if (a.error() != null) h.put("error", a.error());
                else {
                    h.put("kind", NodeQuestionCodec.kind(a.answer()));
                    h.set("result", NodeQuestionCodec.result(a.answer()));
                }
            }
            case NodeLeave l -> h = Frames.header("node_leave");
            case StartActor s -> h = startActor(s);
            case KillActor k -> h = actorOp("kill_actor", k.actorId());
            case Ask a -> {
                h = Frames.header("node_ask");
                h.put("ask_id", a.askId());
                h.put("kind", a.question().kind());
                h.set("args", NodeQuestionCodec.args(a.question()));
            }
            case UnknownAsk a -> (h = Frames.header("node_ask")).put("ask_id", a.askId()).put("kind", a.kind()).putObject("args");
        }
        return new Frame(h);
    }

    private static ObjectNode actorOp(String op, String actorId) {
        ObjectNode h = Frames.header(op);
        h.put("actor_id", actorId);
        return h;
    }

    private static ObjectNode startActor(StartActor s) {
        ObjectNode h = actorOp("start_actor", s.actorId());
        h.put("class_name", s.className());
        h.set("accelerator_ids", FrameCodec.json().valueToTree(s.acceleratorIds()));
        h.set("env_vars", FrameCodec.json().valueToTree(s.envVars()));
        if (s.context() != null) {
            ObjectNode c = h.putObject("context");
            c.put("python", s.context().python());
            c.put("cwd", s.context().cwd());
            ArrayNode sysPath = c.putArray("sys_path");
            s.context().sysPath().forEach(sysPath::add);
        }
        h.put("log_to_owner", s.logToOwner());
        h.put("omp_threads", s.ompThreads());
        return h;
    }

    // ------------------------------------------------------------------ reading

    /** A frame from a joined node; a {@link BadRequest} names the op and the field that was wrong. */
    public static ToHead toHead(Frame frame) throws BadRequest {
        if (isRelayed(frame)) return relayed(frame);
        ObjectNode h = frame.header();
        Fields f = new Fields(h);
        return switch (frame.op()) {
            case "ping" -> ping(f, h);
            case "pong" -> new Pong(f.longInteger("t"));
            case "client_open" -> new ClientOpen(f.longInteger("client"));
            case "client_close" -> new ClientClose(f.longInteger("client"));
            case "node_facts" -> {
                ObjectNode facts = h.deepCopy();
                facts.remove("op");
                yield new HostFactsUpdate(facts);
            }
            case "actor_started" -> new ActorStarted(f.hex("actor_id", 32), f.longInteger("pid"));
            case "actor_start_failed" -> new ActorStartFailed(f.hex("actor_id", 32), f.text("detail"));
            case "actor_exited" -> new ActorExited(f.hex("actor_id", 32), f.integer("code"), f.textList("tail"),
                    f.optLong("oom_kills", 0));
            case "log" -> new ActorLog(f.hex("actor_id", 32), frame);
            case "node_versions" -> new NodeVersions(f.object("versions"));
            case "node_answer" -> nodeAnswer(f, h);
            case "node_leave" -> new NodeLeave();
            default -> throw unknown(frame);
        };
    }

    /** A frame from the head, once joined. */
    public static ToNode toNode(Frame frame) throws BadRequest {
        if (isRelayed(frame)) return relayed(frame);
        ObjectNode h = frame.header();
        Fields f = new Fields(h);
        return switch (frame.op()) {
            case "ping" -> ping(f, h);
            case "client_close" -> new ClientClose(f.longInteger("client"));
            case "start_actor" -> {
                ObjectNode c = f.optObject("context");
                ProcessContext context = null;
                if (c != null) {
                    Fields cf = new Fields(c, "start_actor context");
                    context = new ProcessContext(cf.optText("python"), cf.optText("cwd"), cf.textList("sys_path"));
                }
                yield new StartActor(f.hex("actor_id", 32), f.text("class_name"), f.textListMap("accelerator_ids"),
                        f.textMap("env_vars"), context, f.optBool("log_to_owner", true), f.integer("omp_threads"));
            }
            case "kill_actor" -> new KillActor(f.hex("actor_id", 32));
            case "node_ask" -> nodeAsk(f, h);
            default -> throw unknown(frame);
        };
    }

    /** A question of a kind this node does not know reads as an {@link UnknownAsk}. */
    private static ToNode nodeAsk(Fields f, ObjectNode h) throws BadRequest {
        String kind = f.text("kind");
        if (!UnknownAsk.KIND.matcher(kind).matches()) {
            throw new BadRequest(-1, "node_ask: 'kind' must be a short lower-case name, got '" + Request.clip(kind) + "'");
        }
        JsonNode args = h.get("args");
        if (args == null || !(args.isObject() || args.isArray())) {
            throw new BadRequest(-1, "node_ask: 'args' must be an object or an array");
        }
        NodeQuestion<?> question = NodeQuestionCodec.question(kind, args);
        return question == null ? new UnknownAsk(f.longInteger("ask_id"), kind) : new Ask(f.longInteger("ask_id"), question);
    }

    /** An answer names its question's kind, so that it reads into that kind's record; one that does not read fails its ask at once. */
    private static AskAnswer nodeAnswer(Fields f, ObjectNode h) throws BadRequest {
        long askId = f.longInteger("ask_id");
        String error = f.optText("error");
        if (error != null) return new AskAnswer(askId, null, error);
        if (h.get("result") == null) throw new BadRequest(-1, "node_answer: needs 'result' or 'error'");
        try {
            return new AskAnswer(askId, NodeQuestionCodec.answer(f.text("kind"), h.get("result")), null);
        } catch (BadRequest e) {
            return new AskAnswer(askId, null, "its answer did not read: " + e.getMessage());
        }
    }

    private static Ping ping(Fields f, ObjectNode h) throws BadRequest {
        return new Ping(h.hasNonNull("t") ? f.longInteger("t") : null);
    }

    private static Relayed relayed(Frame frame) {
        long cid = frame.linkCid();
        if (cid < 0) cid = frame.header().remove(CID).asLong(-1); // a tree's tag is cut in place
        return new Relayed(cid, frame);
    }

    private static boolean isRelayed(Frame frame) {
        return frame.linkCid() >= 0 || frame.header().has(CID);
    }

    private static BadRequest unknown(Frame frame) {
        String op = frame.op();
        return new BadRequest(-1, "unknown link op '" + (op.length() > 40 ? op.substring(0, 40) + "..." : op) + "'");
    }

    /** The head's first frame; a {@link BadRequest} when it is not a challenge. */
    public static Challenge challenge(Frame frame) throws BadRequest {
        Fields f = new Fields(frame.header());
        if (!frame.op().equals("challenge")) throw f.bad("expected 'challenge'");
        return new Challenge(f.text("nonce"), f.integer("proto"), "token".equals(f.optText("auth")));
    }

    /** A node's first frame if it is a join, else null; its fields are checked by the head (see {@link Join}). */
    public static Join join(Frame frame) {
        if (!frame.op().equals("join")) return null;
        ObjectNode h = frame.header();
        Map<String, Double> resources = Map.of();
        String badResources = null;
        try {
            resources = ResourceJson.read(h.get("resources"), "join resources");
        } catch (IllegalArgumentException e) {
            badResources = e.getMessage();
        }
        return new Join(h.path("rid").asLong(-1), h.path("proto").asInt(-1),
                h.hasNonNull("auth") ? h.get("auth").asText() : null, h.path("node_id").asText(""),
                h.path("node_ip").asText(""), h.path("hostname").asText(null), h.path("session_dir").asText(""),
                resources, badResources, h.get("accelerators"), textFields(h.get("labels")),
                h.get("facts") instanceof ObjectNode o ? o : null);
    }

    /** The text fields of a JSON object (others left out), or an empty map when it is no object. */
    private static Map<String, String> textFields(JsonNode o) {
        Map<String, String> out = new LinkedHashMap<>();
        if (o instanceof ObjectNode obj) obj.fields().forEachRemaining(e -> {
            if (e.getValue().isTextual()) out.put(e.getKey(), e.getValue().asText());
        });
        return out;
    }

    /** The head's answer to a join. */
    public static JoinAnswer joinAnswer(Frame frame) throws BadRequest {
        ObjectNode h = frame.header();
        Fields f = new Fields(h);
        if (!frame.op().equals("reply")) throw f.bad("expected the reply to 'join'");
        if (!f.optBool("ok", false)) return new Refused(f.ridOrMinus(), h.path("error").asText());
        return new Welcome(f.rid(), f.optText("head_node_id"), f.optText("namespace"), f.optLong("heartbeat_ms", -1),
                f.optLong("timeout_ms", -1));
    }
}
