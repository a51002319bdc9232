package beam.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * Every message a client may send, one record per op (docs/PROTOCOL.md). {@link RequestCodec}
 * reads a frame header into one and writes one back, in one place. The dispatcher switches
 * over this sealed type exhaustively, so a new op cannot be half-handled.
 */
public sealed interface Request {
    /** Request id for a reply, or -1 for one-way messages. */
    long rid();

    /**
     * A request whose answer may wait: for other nodes' answers (doctor, stack, logs), a GC
     * (daemon_stats), or a walk of the whole cluster (the rest). The thread that reads its
     * client reads other clients too, so such a request is served off it
     * (beam.dispatch.OffLoop). Being a type, not a list of names, a new waiting request
     * says so where it is declared.
     */
    sealed interface MayWait extends Request permits ClusterState, Status, StateList, StateSummary, Doctor, Logs, Stack,
            DaemonStats {
    }

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

    /** @param noRestart Ray's ray.kill(no_restart): beam never restarts an actor, so it is carried, not acted on */
    record Kill(long rid, String actorId, boolean noRestart) implements Request {
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

    record ClusterState(long rid) implements MayWait {
    }

    record Status(long rid) implements MayWait {
    }

    /**
     * One page of a state table ({@code ray list}, {@code ray get}): {@code filters} as sent
     * ({@code [[key, predicate, value], ...]} or null), checked by the query engine; {@code id}
     * (or null) keeps the one row of that id.
     */
    record StateList(long rid, String table, JsonNode filters, long limit, boolean detail, String id) implements MayWait {
    }

    /** {@code ray summary actors|tasks}: counts per class or name and state. */
    record StateSummary(long rid, String table, JsonNode filters) implements MayWait {
    }

    record Shutdown(long rid) implements Request {
    }

    /** A driver leaving on purpose (ray.shutdown): fate-shared before the reply, so its names are free once it returns. */
    record Disconnect(long rid) implements Request {
    }

    /** `ray doctor`: reachability, interfaces, versions and GPUs of every node. */
    record Doctor(long rid) implements MayWait {
    }

    /**
     * `ray logs` and the dashboard's log tail: one of {@code actorId}, {@code pid} or
     * {@code glob} names the file(s); {@code offset} &ge; 0 asks for what was written after it.
     */
    record Logs(long rid, String actorId, long pid, String glob, String nodeIp, String nodeId, boolean stderr, int lines,
                long offset)
            implements MayWait {
    }

    /** `ray stack`: the Python stacks of the cluster's actor processes and drivers, narrowed by any of these (null / 0: all). */
    record Stack(long rid, String nodeIp, String actorId, long pid) implements MayWait {
    }

    /** The daemon's own health: heap, fds, threads, table sizes (for soak tests and `ray status`); {@code gc}: run a GC first. */
    record DaemonStats(long rid, boolean gc) implements MayWait {
    }

    /** One-way: a process's ray.util.metrics values, cumulative (docs/PROTOCOL.md, "metrics"). */
    record Metrics(JsonNode metrics) implements Request {
        public long rid() {
            return -1;
        }
    }

    /** Worker: the constructor returned. @param reprName repr() of the instance when its class defines __repr__ (Ray's repr_name), or null */
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

    /**
     * A call finished: sent by its worker (plain results are relayed as bytes, beam.codec.RelayHeader;
     * this is the parsed path). {@code kind} and {@code message} name a failure (or null).
     */
    record Result(String oid, String status, String kind, String message) implements Request {
        public long rid() {
            return -1;
        }
    }

    /**
     * A header that names an op but breaks its rules; answered with an error, connection kept.
     * A one-way message has no rid to answer: its refusal goes where the sender waits, a failed
     * result for a call's {@link #oid}, {@code pg_failed} for a group's {@link #pgId} (both null
     * when there is no such place; the daemon then only logs it).
     */
    final class BadRequest extends Exception {
        private final long rid;
        private final String oid;
        private final String pgId;

        public BadRequest(long rid, String message) {
            this(rid, message, null, null);
        }

        BadRequest(long rid, String message, String oid, String pgId) {
            super(message);
            this.rid = rid;
            this.oid = oid;
            this.pgId = pgId;
        }

        public long rid() {
            return rid;
        }

        public String oid() {
            return oid;
        }

        public String pgId() {
            return pgId;
        }
    }

    static String clip(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }
}
