package beam.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * Every message a client may send, one record per op (docs/PROTOCOL.md), parsed and
 * type-checked from a frame header by {@link #parse}. The dispatcher switches over this
 * sealed type exhaustively, so a new op cannot be half-handled.
 */
public sealed interface Request {
    /** Request id for a reply, or -1 for one-way messages. */
    long rid();

    record Hello(long rid, int proto, String role, String actorId, long pid, String python, String cwd,
                 List<String> sysPath, boolean logToDriver, String namespace) implements Request {
    }

    /** @param getIfExists Ray's get_if_exists: answer with the live actor holding {@code name} instead of refusing */
    record CreateActor(long rid, String actorId, String className, String name, String namespace, ObjectNode options,
                       boolean getIfExists) implements Request {
    }

    /** @param label the call's short first argument as the caller copied it (null when none) */
    record Call(String actorId, String oid, String method, String label) implements Request {
        public long rid() {
            return -1;
        }
    }

    record Kill(long rid, String actorId) implements Request {
    }

    /** One-way: a handle of the actor was pickled to cross processes (kept alive until borrowed). */
    record Lend(String actorId) implements Request {
        public long rid() {
            return -1;
        }
    }

    /** One-way: this client holds a handle of the actor now; {@code lent}: one lent to it. */
    record Borrow(String actorId, boolean lent) implements Request {
        public long rid() {
            return -1;
        }
    }

    /** One-way: this client holds no handle of the actor any more. */
    record Release(String actorId) implements Request {
        public long rid() {
            return -1;
        }
    }

    record GetActor(long rid, String name, String namespace) implements Request {
    }

    /** {@code bundleLabelSelector}: Ray's bundle_label_selector as sent (a list of one selector per bundle), or null. */
    record PgCreate(long rid, String pgId, String name, String strategy, JsonNode bundles, JsonNode bundleLabelSelector,
                    boolean detached) implements Request {
    }

    record PgRemove(long rid, String pgId) implements Request {
    }

    record PgTable(long rid, String pgId) implements Request {
    }

    record PgWatch(long rid, String pgId) implements Request {
    }

    record ClusterState(long rid) implements Request {
    }

    record Status(long rid) implements Request {
    }

    /**
     * One page of a state table ({@code ray list}, {@code ray get}): {@code filters} as sent
     * ({@code [[key, predicate, value], ...]} or null), checked by the query engine; {@code id}
     * (or null) keeps the one row of that id.
     */
    record StateList(long rid, String table, JsonNode filters, long limit, boolean detail, String id) implements Request {
    }

    /** {@code ray summary actors|tasks}: counts per class or name and state. */
    record StateSummary(long rid, String table, JsonNode filters) implements Request {
    }

    record Shutdown(long rid) implements Request {
    }

    /** A driver leaving on purpose (ray.shutdown): fate-shared before the reply, so its names are free once it returns. */
    record Disconnect(long rid) implements Request {
    }

    /** `ray doctor`: reachability, interfaces, versions and GPUs of every node. */
    record Doctor(long rid) implements Request {
    }

    /**
     * `ray logs` and the dashboard's log tail: one of {@code actorId}, {@code pid} or
     * {@code glob} names the file(s); {@code offset} &ge; 0 asks for what was written after it.
     */
    record Logs(long rid, String actorId, long pid, String glob, String nodeIp, String nodeId, boolean stderr, int lines,
                long offset)
            implements Request {
    }

    /** `ray stack`: the Python stacks of the cluster's actor processes and drivers, narrowed by any of these (null / 0: all). */
    record Stack(long rid, String nodeIp, String actorId, long pid) implements Request {
    }

    /** The daemon's own health: heap, fds, threads, table sizes (for soak tests and `ray status`). */
    record DaemonStats(long rid) implements Request {
    }

    /** One-way: a process's ray.util.metrics values, cumulative (docs/PROTOCOL.md, "metrics"). */
    record Metrics(JsonNode metrics) implements Request {
        public long rid() {
            return -1;
        }
    }

    /** Worker: the constructor returned. */
    /** @param reprName repr() of the instance when its class defines __repr__ (Ray's repr_name), or null */
    record ActorReady(String actorId, String reprName) implements Request {
        public long rid() {
            return -1;
        }
    }

    /** Worker: the constructor raised. */
    record ActorFailed(String actorId, String message) implements Request {
        public long rid() {
            return -1;
        }
    }

    /** Worker: a call finished. */
    record Result(String oid, String status) implements Request {
        public long rid() {
            return -1;
        }
    }

    /** A header that names an op but breaks its rules; answered with an error, connection kept. */
    final class BadRequest extends Exception {
        private final long rid;

        public BadRequest(long rid, String message) {
            super(message);
            this.rid = rid;
        }

        public long rid() {
            return rid;
        }
    }

    static Request parse(ObjectNode h) throws BadRequest {
        Fields f = new Fields(h);
        String op = h.get("op").asText();
        return switch (op) {
            case "hello" -> new Hello(f.rid(), f.integer("proto"), f.text("role"), f.optText("actor_id"),
                    f.optLong("pid", 0), f.optText("python"), f.optText("cwd"), f.textList("sys_path"),
                    f.optBool("log_to_driver", true), f.optText("namespace"));
            case "create_actor" -> new CreateActor(f.rid(), f.hex("actor_id", 32), f.text("class_name"),
                    f.optText("name"), f.optText("namespace"), f.object("options"), f.optBool("get_if_exists", false));
            case "call" -> new Call(f.hex("actor_id", 32), f.hex("oid", 56), f.text("method"), f.label("label"));
            case "kill" -> new Kill(f.rid(), f.hex("actor_id", 32));
            case "lend" -> new Lend(f.hex("actor_id", 32));
            case "borrow" -> new Borrow(f.hex("actor_id", 32), f.optBool("lent", false));
            case "release" -> new Release(f.hex("actor_id", 32));
            case "get_actor" -> new GetActor(f.rid(), f.text("name"), f.optText("namespace"));
            // pg_create and pg_remove may come one-way (no rid): the shim's fast path, docs/PROTOCOL.md
            case "pg_create" -> new PgCreate(f.ridOrMinus(), f.hex("pg_id", 36), f.optText("name"), f.text("strategy"),
                    f.array("bundles"), h.get("bundle_label_selector"), "detached".equals(f.optText("lifetime")));
            case "pg_remove" -> new PgRemove(f.ridOrMinus(), f.hex("pg_id", 36));
            case "pg_table" -> new PgTable(f.rid(), h.hasNonNull("pg_id") ? f.hex("pg_id", 36) : null);
            case "pg_watch" -> new PgWatch(f.rid(), f.hex("pg_id", 36));
            case "cluster_state" -> new ClusterState(f.rid());
            case "status" -> new Status(f.rid());
            case "state_list" -> new StateList(f.rid(), f.text("table"), h.get("filters"), f.optLong("limit", 100),
                    f.optBool("detail", false), f.optText("id"));
            case "state_summary" -> new StateSummary(f.rid(), f.text("table"), h.get("filters"));
            case "shutdown" -> new Shutdown(f.rid());
            case "disconnect" -> new Disconnect(f.rid());
            case "daemon_stats" -> new DaemonStats(f.rid());
            case "doctor" -> new Doctor(f.rid());
            case "logs" -> new Logs(f.rid(), h.hasNonNull("actor_id") ? f.hex("actor_id", 32) : null, f.optLong("pid", 0),
                    f.optText("glob"), f.optText("node_ip"),
                    h.hasNonNull("node_id") ? f.hex("node_id", 56) : null, f.optBool("err", false), (int) f.optLong("lines", 1_000),
                    f.optLong("offset", -1));
            case "stack" -> new Stack(f.rid(), f.optText("node_ip"),
                    h.hasNonNull("actor_id") ? f.hex("actor_id", 32) : null, f.optLong("pid", 0));
            case "actor_ready" -> new ActorReady(f.hex("actor_id", 32), f.optText("repr_name"));
            case "actor_failed" -> new ActorFailed(f.hex("actor_id", 32), f.optText("message"));
            case "result" -> new Result(f.hex("oid", 56), f.text("status"));
            case "metrics" -> new Metrics(f.array("metrics"));
            default -> throw new BadRequest(f.ridOrMinus(), "unknown op '" + clip(op) + "'");
        };
    }

    static String clip(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }
}
