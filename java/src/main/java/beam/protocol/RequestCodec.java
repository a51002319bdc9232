package beam.protocol;

import beam.protocol.Request.ActorFailed;
import beam.protocol.Request.ActorReady;
import beam.protocol.Request.BadRequest;
import beam.protocol.Request.Borrow;
import beam.protocol.Request.Call;
import beam.protocol.Request.ClusterState;
import beam.protocol.Request.CreateActor;
import beam.protocol.Request.DaemonStats;
import beam.protocol.Request.Disconnect;
import beam.protocol.Request.Doctor;
import beam.protocol.Request.GetActor;
import beam.protocol.Request.Hello;
import beam.protocol.Request.Kill;
import beam.protocol.Request.Lend;
import beam.protocol.Request.Logs;
import beam.protocol.Request.Metrics;
import beam.protocol.Request.PgCreate;
import beam.protocol.Request.PgRemove;
import beam.protocol.Request.PgTable;
import beam.protocol.Request.PgWatch;
import beam.protocol.Request.Release;
import beam.protocol.Request.Result;
import beam.protocol.Request.Shutdown;
import beam.protocol.Request.Stack;
import beam.protocol.Request.StateList;
import beam.protocol.Request.StateSummary;
import beam.protocol.Request.Status;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The one place a client's request header is read into its {@link Request} record
 * ({@link #parse}) and written from one ({@link #encode}), field by field as
 * docs/PROTOCOL.md lists them, so that {@code parse(encode(r))} equals {@code r} and the
 * Java CLI and the Python client send the same header for the same request
 * (tests/golden/request_frames.json holds one per op). An optional field is written only
 * when it is set (not null, not its default), as the Python client sends it.
 */
public final class RequestCodec {
    /** What {@code logs} reads when {@code lines} is absent. */
    public static final int DEFAULT_LOG_LINES = 1_000;
    /** What {@code state_list} returns at most when {@code limit} is absent. */
    public static final long DEFAULT_STATE_LIMIT = 100;

    private interface Reader {
        Request read(Fields f, ObjectNode h) throws BadRequest;
    }

    private static final Map<String, Reader> READERS = new HashMap<>();
    private static final Map<Class<? extends Request>, String> OPS = new HashMap<>();
    /** The ops of the {@link Request.MayWait} types, derived from them: looked up for every frame a client sends. */
    private static final Set<String> WAITING = new HashSet<>();

    private static void op(String name, Class<? extends Request> type, Reader reader) {
        READERS.put(name, reader);
        OPS.put(type, name);
        if (Request.MayWait.class.isAssignableFrom(type)) WAITING.add(name);
    }

    static {
        op("hello", Hello.class, (f, h) -> new Hello(f.rid(), f.integer("proto"), f.text("role"), f.optText("actor_id"),
                f.optLong("pid", 0), f.optText("python"), f.optText("cwd"), f.textList("sys_path"),
                f.optBool("log_to_driver", true), f.optText("namespace")));
        op("create_actor", CreateActor.class, (f, h) -> new CreateActor(f.rid(), f.hex("actor_id", 32), f.text("class_name"),
                f.optText("name"), f.optText("namespace"), f.object("options"), f.optBool("get_if_exists", false)));
        op("call", Call.class, (f, h) -> new Call(f.hex("actor_id", 32), f.hex("oid", 56), f.text("method"), f.label("label")));
        op("kill", Kill.class, (f, h) -> new Kill(f.rid(), f.hex("actor_id", 32), f.optBool("no_restart", true)));
        op("lend", Lend.class, (f, h) -> new Lend(f.hex("actor_id", 32)));
        op("borrow", Borrow.class, (f, h) -> new Borrow(f.hex("actor_id", 32), f.optBool("lent", false)));
        op("release", Release.class, (f, h) -> new Release(f.hex("actor_id", 32)));
        op("get_actor", GetActor.class, (f, h) -> new GetActor(f.rid(), f.text("name"), f.optText("namespace")));
        // pg_create and pg_remove may come one-way (no rid): the shim's fast path, docs/PROTOCOL.md
        op("pg_create", PgCreate.class, (f, h) -> new PgCreate(f.ridOrMinus(), f.hex("pg_id", 36), f.optText("name"),
                f.text("strategy"), f.array("bundles"), h.get("bundle_label_selector"), "detached".equals(f.optText("lifetime"))));
        op("pg_remove", PgRemove.class, (f, h) -> new PgRemove(f.ridOrMinus(), f.hex("pg_id", 36)));
        op("pg_table", PgTable.class, (f, h) -> new PgTable(f.rid(), h.hasNonNull("pg_id") ? f.hex("pg_id", 36) : null));
        op("pg_watch", PgWatch.class, (f, h) -> new PgWatch(f.rid(), f.hex("pg_id", 36)));
        op("cluster_state", ClusterState.class, (f, h) -> new ClusterState(f.rid()));
        op("status", Status.class, (f, h) -> new Status(f.rid()));
        op("state_list", StateList.class, (f, h) -> new StateList(f.rid(), f.text("table"), optNode(h, "filters"),
                f.optLong("limit", DEFAULT_STATE_LIMIT), f.optBool("detail", false), f.optText("id")));
        op("state_summary", StateSummary.class, (f, h) -> new StateSummary(f.rid(), f.text("table"), optNode(h, "filters")));
        op("shutdown", Shutdown.class, (f, h) -> new Shutdown(f.rid()));
        op("disconnect", Disconnect.class, (f, h) -> new Disconnect(f.rid()));
        op("daemon_stats", DaemonStats.class, (f, h) -> new DaemonStats(f.rid(), f.optBool("gc", false)));
        op("doctor", Doctor.class, (f, h) -> new Doctor(f.rid()));
        op("logs", Logs.class, (f, h) -> new Logs(f.rid(), h.hasNonNull("actor_id") ? f.hex("actor_id", 32) : null,
                f.optLong("pid", 0), f.optText("glob"), f.optText("node_ip"),
                h.hasNonNull("node_id") ? f.hex("node_id", 56) : null, f.optBool("err", false),
                (int) f.optLong("lines", DEFAULT_LOG_LINES), f.optLong("offset", -1)));
        op("stack", Stack.class, (f, h) -> new Stack(f.rid(), f.optText("node_ip"),
                h.hasNonNull("actor_id") ? f.hex("actor_id", 32) : null, f.optLong("pid", 0)));
        op("actor_ready", ActorReady.class, (f, h) -> new ActorReady(f.hex("actor_id", 32), f.optText("repr_name")));
        op("actor_failed", ActorFailed.class, (f, h) -> new ActorFailed(f.hex("actor_id", 32), f.optText("message")));
        op("result", Result.class, (f, h) -> new Result(f.hex("oid", 56), f.text("status"), f.optText("kind"),
                f.optText("message")));
        op("metrics", Metrics.class, (f, h) -> new Metrics(f.array("metrics")));
    }

    private RequestCodec() {
    }

    /** The op name of a request type, as its frames carry it. */
    public static String op(Class<? extends Request> type) {
        return OPS.get(type);
    }

    /** True when {@code op} names a request that may wait ({@link Request.MayWait}). */
    public static boolean mayWait(String op) {
        return WAITING.contains(op);
    }

    /** Reads and type-checks a client's header; a refusal names the op and field that was wrong. */
    public static Request parse(ObjectNode h) throws BadRequest {
        Fields f = new Fields(h);
        String op = h.get("op").asText();
        Reader reader = READERS.get(op);
        try {
            if (reader == null) throw new BadRequest(f.ridOrMinus(), "unknown op '" + Request.clip(op) + "'");
            return reader.read(f, h);
        } catch (BadRequest e) {
            if (e.rid() >= 0) throw e;
            // one-way: the refusal goes where the sender waits (a call's result, a group's pg_failed)
            JsonNode oid = h.get("oid");
            JsonNode pgId = h.get("pg_id");
            throw new BadRequest(-1, e.getMessage(), oid != null && oid.isTextual() && oid.asText().length() == 56
                    ? oid.asText() : null, op.equals(op(PgCreate.class)) && pgId != null && pgId.isTextual() ? pgId.asText() : null);
        }
    }

    private static JsonNode optNode(ObjectNode h, String name) {
        return h.hasNonNull(name) ? h.get(name) : null;
    }

    /** The header of {@code request} (without {@code plen}: a payload's length is the frame's). */
    public static ObjectNode encode(Request request) {
        ObjectNode h = Frames.header(op(request.getClass()));
        if (request.rid() >= 0) h.put("rid", request.rid());
        switch (request) {
            case Hello r -> {
                h.put("proto", r.proto());
                h.put("role", r.role());
                putOpt(h, "actor_id", r.actorId());
                h.put("pid", r.pid());
                putOpt(h, "python", r.python());
                putOpt(h, "cwd", r.cwd());
                r.sysPath().forEach(h.putArray("sys_path")::add);
                h.put("log_to_driver", r.logToDriver());
                putOpt(h, "namespace", r.namespace());
            }
            case CreateActor r -> {
                h.put("actor_id", r.actorId());
                h.put("class_name", r.className());
                putOpt(h, "name", r.name());
                putOpt(h, "namespace", r.namespace());
                h.set("options", r.options());
                h.put("get_if_exists", r.getIfExists());
            }
            case Call r -> {
                h.put("actor_id", r.actorId());
                h.put("method", r.method());
                h.put("oid", r.oid());
                putOpt(h, "label", r.label());
            }
            case Kill r -> {
                h.put("actor_id", r.actorId());
                h.put("no_restart", r.noRestart());
            }
            case Lend r -> h.put("actor_id", r.actorId());
            case Borrow r -> {
                h.put("actor_id", r.actorId());
                h.put("lent", r.lent());
            }
            case Release r -> h.put("actor_id", r.actorId());
            case GetActor r -> {
                h.put("name", r.name());
                putOpt(h, "namespace", r.namespace());
            }
            case PgCreate r -> {
                h.put("pg_id", r.pgId());
                putOpt(h, "name", r.name());
                h.put("strategy", r.strategy());
                h.set("bundles", r.bundles());
                if (r.bundleLabelSelector() != null && !r.bundleLabelSelector().isNull()) {
                    h.set("bundle_label_selector", r.bundleLabelSelector());
                }
                if (r.detached()) h.put("lifetime", "detached");
            }
            case PgRemove r -> h.put("pg_id", r.pgId());
            case PgTable r -> putOpt(h, "pg_id", r.pgId());
            case PgWatch r -> h.put("pg_id", r.pgId());
            case ClusterState r -> {
            }
            case Status r -> {
            }
            case StateList r -> {
                h.put("table", r.table());
                if (r.filters() != null) h.set("filters", r.filters());
                h.put("limit", r.limit());
                h.put("detail", r.detail());
                putOpt(h, "id", r.id());
            }
            case StateSummary r -> {
                h.put("table", r.table());
                if (r.filters() != null) h.set("filters", r.filters());
            }
            case Shutdown r -> {
            }
            case Disconnect r -> {
            }
            case DaemonStats r -> {
                if (r.gc()) h.put("gc", true);
            }
            case Doctor r -> {
            }
            case Logs r -> {
                putOpt(h, "actor_id", r.actorId());
                if (r.pid() != 0) h.put("pid", r.pid());
                putOpt(h, "glob", r.glob());
                putOpt(h, "node_ip", r.nodeIp());
                putOpt(h, "node_id", r.nodeId());
                if (r.stderr()) h.put("err", true);
                if (r.lines() != DEFAULT_LOG_LINES) h.put("lines", r.lines());
                if (r.offset() != -1) h.put("offset", r.offset());
            }
            case Stack r -> {
                putOpt(h, "node_ip", r.nodeIp());
                putOpt(h, "actor_id", r.actorId());
                if (r.pid() != 0) h.put("pid", r.pid());
            }
            case Metrics r -> h.set("metrics", r.metrics());
            case ActorReady r -> {
                h.put("actor_id", r.actorId());
                putOpt(h, "repr_name", r.reprName());
            }
            case ActorFailed r -> {
                h.put("actor_id", r.actorId());
                putOpt(h, "message", r.message());
            }
            case Result r -> {
                h.put("oid", r.oid());
                h.put("status", r.status());
                putOpt(h, "kind", r.kind());
                putOpt(h, "message", r.message());
            }
        }
        return h;
    }

    private static void putOpt(ObjectNode h, String name, String value) {
        if (value != null) h.put(name, value);
    }
}
