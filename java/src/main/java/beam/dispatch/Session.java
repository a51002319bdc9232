package beam.dispatch;

import beam.cluster.ActorRecord;
import beam.cluster.Client;
import beam.cluster.Cluster;
import beam.cluster.RequestException;
import beam.cluster.Resources;
import beam.codec.Frame;
import beam.codec.FrameException;
import beam.connection.Connection;
import beam.cluster.ProcessContext;
import beam.protocol.Frames;
import beam.protocol.Request;
import beam.protocol.Request.BadRequest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One client connection (a driver or an actor worker), from {@code hello} to close.
 * {@link #run()} runs on the connection's own virtual thread and handles frames strictly in
 * arrival order, which is what keeps one caller's calls to an actor in submission order.
 *
 * <p>Two tiers of bad input: a frame that breaks framing ends this connection (and only
 * it); a well-framed request that is wrong gets an error reply and the connection lives.
 */
public final class Session implements Client {
    public static final int PROTOCOL_VERSION = 1;
    private static final Logger LOG = Logger.getLogger(Session.class.getName());

    private final Connection connection;
    private final DaemonContext daemon;
    private final Cluster cluster;
    private String role = "";
    private String jobId = "";
    private String actorId;
    private long pid;
    private boolean logToDriver = true;
    private ProcessContext processContext;

    public Session(Connection connection, DaemonContext daemon) {
        this.connection = connection;
        this.daemon = daemon;
        this.cluster = daemon.cluster();
    }

    public void run() {
        try {
            if (!handshake()) return;
            Frame frame;
            while ((frame = connection.read()) != null) handle(frame);
        } catch (FrameException e) {
            LOG.warning("closing " + describe() + ": " + e.getMessage());
        } catch (IOException e) {
            LOG.fine(() -> describe() + " went away: " + e.getMessage());
        } finally {
            connection.closeAfterFlush();
            if (!role.isEmpty()) cluster.onClientGone(this);
            if ("worker".equals(role)) daemon.cluster().onWorkerDisconnected(actorId);
        }
    }

    private boolean handshake() throws IOException, FrameException {
        Frame first = connection.read();
        if (first == null) return false;
        Request request;
        try {
            request = Request.parse(first.header());
        } catch (BadRequest e) {
            connection.send(Frames.error(e.rid(), "ConnectionError", e.getMessage()));
            connection.closeAfterFlush();
            return false;
        }
        if (!(request instanceof Request.Hello hello)) {
            connection.send(Frames.error(request.rid(), "ConnectionError",
                    "the first message on a connection must be 'hello' (see docs/PROTOCOL.md)"));
            connection.closeAfterFlush();
            return false;
        }
        if (hello.proto() != PROTOCOL_VERSION) {
            connection.send(Frames.error(hello.rid(), "ConnectionError", "protocol version mismatch: this daemon speaks "
                    + PROTOCOL_VERSION + ", the client speaks " + hello.proto() + ". Install the same beam version on both."));
            connection.closeAfterFlush();
            return false;
        }
        if (!hello.role().equals("driver") && !hello.role().equals("worker")) {
            connection.send(Frames.error(hello.rid(), "ConnectionError", "hello: role must be 'driver' or 'worker'"));
            connection.closeAfterFlush();
            return false;
        }
        pid = hello.pid();
        logToDriver = hello.logToDriver();
        processContext = new ProcessContext(hello.python(), hello.cwd(), hello.sysPath());
        ActorRecord actor = null;
        if (hello.role().equals("worker")) {
            try {
                actor = cluster.onWorkerHello(hello.actorId(), this);
            } catch (RequestException e) {
                connection.send(Frames.error(hello.rid(), "ConnectionError", e.getMessage()));
                connection.closeAfterFlush();
                return false;
            }
            actorId = hello.actorId();
            jobId = actor.owner().jobId();
        } else {
            jobId = daemon.nextJobId();
        }
        role = hello.role();
        ObjectNode reply = Frames.ok(hello.rid());
        reply.put("node_id", daemon.nodeId());
        reply.put("node_ip", daemon.nodeIp());
        reply.put("job_id", jobId);
        reply.put("session_dir", daemon.sessionDir());
        reply.put("gcs_address", daemon.gcsAddress());
        reply.put("namespace", cluster.namespace());
        connection.send(new Frame(reply));
        if (actor != null) connection.send(ActorInit.frame(actor, daemon));
        return true;
    }

    private void handle(Frame frame) {
        Request request;
        try {
            request = Request.parse(frame.header());
        } catch (BadRequest e) {
            if (e.rid() >= 0) connection.send(Frames.error(e.rid(), "ValueError", e.getMessage()));
            else if (frame.header().hasNonNull("oid") && frame.header().get("oid").isTextual()) {
                String oid = frame.header().get("oid").asText();
                if (oid.length() == 56) connection.send(Frames.failedResult(oid, "error", "ValueError", e.getMessage()));
                else LOG.warning(describe() + ": " + e.getMessage());
            } else {
                LOG.warning(describe() + " sent a bad one-way message: " + e.getMessage());
            }
            return;
        }
        try {
            dispatch(request, frame);
        } catch (RequestException e) {
            if (request.rid() >= 0) connection.send(Frames.error(request.rid(), e.kind(), e.getMessage()));
            else LOG.warning(describe() + ": " + e.getMessage());
        } catch (BadRequest e) {
            connection.send(Frames.error(e.rid(), "ValueError", e.getMessage()));
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "bug while handling " + frame.op() + " from " + describe(), e);
            if (request.rid() >= 0) {
                connection.send(Frames.error(request.rid(), "RuntimeError", "internal error in the beam daemon: " + e));
            }
        }
    }

    private void dispatch(Request request, Frame frame) throws RequestException, BadRequest {
        switch (request) {
            case Request.Hello h -> connection.send(Frames.error(h.rid(), "ValueError", "hello was already received"));
            case Request.CreateActor c -> {
                cluster.createActor(this, c.actorId(), c.className(), c.name(), OptionsParser.parse(c.rid(), c.options()),
                        frame.payload());
                connection.send(new Frame(Frames.ok(c.rid())));
            }
            case Request.Call c -> cluster.call(this, c.actorId(), c.oid(), frame.header(), frame.payload());
            case Request.Kill k -> {
                cluster.kill(k.actorId());
                connection.send(new Frame(Frames.ok(k.rid())));
            }
            case Request.GetActor g -> {
                ObjectNode info = cluster.actorByName(g.name());
                ObjectNode reply = Frames.ok(g.rid());
                info.fieldNames().forEachRemaining(n -> {
                    if (!n.equals("op")) reply.set(n, info.get(n));
                });
                connection.send(new Frame(reply));
            }
            case Request.PgCreate p -> {
                cluster.groups().create(this, p.pgId(), p.name() == null ? "" : p.name(), p.strategy(),
                        bundles(p.rid(), p.bundles()), p.detached());
                connection.send(new Frame(Frames.ok(p.rid())));
            }
            case Request.PgRemove p -> {
                cluster.groups().remove(p.pgId());
                connection.send(new Frame(Frames.ok(p.rid())));
            }
            case Request.PgTable p -> {
                ObjectNode reply = Frames.ok(p.rid());
                reply.set("table", p.pgId() == null ? cluster.groups().tableAll() : cluster.groups().table(p.pgId()));
                connection.send(new Frame(reply));
            }
            case Request.PgWatch p -> {
                cluster.groups().watch(this, p.pgId());
                connection.send(new Frame(Frames.ok(p.rid())));
            }
            case Request.ClusterState s -> connection.send(new Frame(merge(Frames.ok(s.rid()), cluster.clusterState())));
            case Request.Status s -> connection.send(new Frame(merge(Frames.ok(s.rid()), cluster.status())));
            case Request.Shutdown s -> {
                connection.send(new Frame(Frames.ok(s.rid())));
                daemon.requestShutdown();
            }
            case Request.ActorReady r -> cluster.onActorReady(ownActor(r.actorId()));
            case Request.ActorFailed r -> cluster.onActorFailed(ownActor(r.actorId()), r.message());
            case Request.Result r -> {
                if (actorId == null) throw RequestException.value("only actor workers send results");
                ObjectNode h = frame.header();
                ObjectNode out = Frames.header("result");
                out.put("oid", r.oid());
                out.put("status", r.status());
                for (String extra : List.of("kind", "message")) if (h.hasNonNull(extra)) out.set(extra, h.get(extra));
                cluster.onResult(actorId, r.oid(), new Frame(out, frame.payload()));
            }
        }
    }

    private String ownActor(String id) throws RequestException {
        if (!id.equals(actorId)) throw RequestException.value("a worker may only report on its own actor");
        return id;
    }

    private static List<Resources> bundles(long rid, JsonNode list) throws BadRequest {
        List<Resources> out = new ArrayList<>();
        int i = 0;
        for (JsonNode b : list) {
            try {
                out.add(Resources.fromJson(b, "bundle " + i));
            } catch (IllegalArgumentException e) {
                throw new BadRequest(rid, "pg_create: " + e.getMessage());
            }
            i++;
        }
        return out;
    }

    private static ObjectNode merge(ObjectNode reply, ObjectNode body) {
        body.fieldNames().forEachRemaining(n -> reply.set(n, body.get(n)));
        return reply;
    }

    // ------------------------------------------------------------------ Client

    @Override
    public void push(Frame frame) {
        connection.send(frame);
    }

    @Override
    public String jobId() {
        return jobId;
    }

    @Override
    public boolean logToDriver() {
        return logToDriver;
    }

    @Override
    public String describe() {
        return ("worker".equals(role) ? "worker of actor " + actorId : "driver") + " pid " + pid;
    }

    @Override
    public ProcessContext processContext() {
        return processContext;
    }
}
