package beam.dispatch;

import beam.cluster.ActorRecord;
import beam.cluster.Cluster;
import beam.cluster.RequestException;
import beam.codec.Frame;
import beam.codec.RelayHeader;
import beam.util.ProcessContext;
import beam.protocol.Frames;
import beam.protocol.Request;
import beam.protocol.Request.BadRequest;
import beam.protocol.RequestCodec;
import beam.util.ErrorKind;
import beam.views.ClusterViews;
import beam.views.Doctor;
import beam.views.Stacks;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One client (a driver or an actor worker), from {@code hello} to close. Its frames arrive
 * through {@link #onFrame} strictly in arrival order (from {@link LocalClient} for a
 * local socket, or from a node link for a client of another node), which is what keeps
 * one caller's calls to an actor in submission order.
 *
 * <p>Two tiers of bad input: a frame that breaks framing ends this connection (and only
 * it); a well-framed request that is wrong gets an error reply and the connection lives.
 */
public final class Session implements FramedClient {
    private static final Logger LOG = Logger.getLogger(Session.class.getName());

    private final FrameSink out;
    private final DaemonContext daemon;
    private final Origin origin;
    private final Cluster cluster;
    private volatile String role = "";
    private volatile boolean closed;
    private String jobId = "";
    private String namespace = "";
    private String actorId;
    private long pid;
    private boolean logToDriver = true;
    private ProcessContext processContext;

    public Session(FrameSink out, DaemonContext daemon, Origin origin) {
        this.out = out;
        this.daemon = daemon;
        this.origin = origin;
        this.cluster = daemon.cluster();
    }

    /** Handles one frame from the client; the first must be hello. Frames are fed in arrival order. */
    public void onFrame(Frame frame) {
        if (closed) return;
        if (role.isEmpty()) handshake(frame);
        else handle(frame);
    }

    /** The client's connection is gone: fate-share what it owned. Idempotent. */
    public void onClosed() {
        allClosed(cluster, List.of(this));
    }

    /** Connections gone at once (a lost node's clients): fate-shared in one pass (Cluster.onClientsGone). */
    public static void allClosed(Cluster cluster, Collection<Session> sessions) {
        List<Session> had = new ArrayList<>();
        List<String> workers = new ArrayList<>();
        for (Session s : sessions) {
            s.closed = true;
            if (s.role.isEmpty()) continue; // never said hello, or fate-shared already
            if ("worker".equals(s.role)) workers.add(s.actorId);
            else s.daemon.drivers().remove(s);
            s.role = "";
            had.add(s);
            s.daemon.userMetrics().sourceGone(s);
        }
        cluster.onClientsGone(had);
        for (String actorId : workers) cluster.onWorkerDisconnected(actorId);
    }

    public boolean isClosed() {
        return closed;
    }

    private void refuse(long rid, String message) {
        out.send(Frames.error(rid, ErrorKind.CONNECTION_REFUSED, message));
        out.close();
        closed = true;
    }

    private void handshake(Frame first) {
        Request request;
        try {
            request = RequestCodec.parse(first.header());
        } catch (BadRequest e) {
            refuse(e.rid(), e.getMessage());
            return;
        }
        String refusal = Handshake.refusal(request);
        if (refusal != null) {
            refuse(request.rid(), refusal);
            return;
        }
        Request.Hello hello = (Request.Hello) request;
        pid = hello.pid();
        logToDriver = hello.logToDriver();
        processContext = new ProcessContext(hello.python(), hello.cwd(), hello.sysPath());
        ActorRecord actor = null;
        if (hello.role().equals("worker")) {
            try {
                actor = cluster.onWorkerHello(hello.actorId(), this);
            } catch (RequestException e) {
                refuse(hello.rid(), e.getMessage());
                return;
            }
            actorId = hello.actorId();
            jobId = actor.owner().jobId();
            namespace = actor.namespace();
        } else {
            jobId = daemon.nextJobId();
            namespace = hello.namespace() != null ? hello.namespace() : UUID.randomUUID().toString();
            if (origin.nodeId().equals(daemon.nodeId())) daemon.driverConnected();
            // only Python drivers name their interpreter: the ray CLI's own connection has no Python stack
            if (hello.python() != null) {
                daemon.drivers().add(this, new Stacks.Driver(hello.pid(), origin.nodeId(), origin.nodeIp(), jobId));
            }
        }
        role = hello.role();
        out.send(Handshake.reply(hello.rid(), jobId, namespace, daemon, origin));
        if (actor != null) out.send(ActorInit.frame(actor, daemon, origin));
    }

    private void handle(Frame frame) {
        if (frame.relay() != null) {
            relay(frame.relay(), frame);
            return;
        }
        Request request;
        try {
            request = RequestCodec.parse(frame.header());
        } catch (BadRequest e) {
            if (e.rid() >= 0) out.send(Frames.error(e.rid(), ErrorKind.INVALID_REQUEST, e.getMessage()));
            else if (e.oid() != null) out.send(Frames.failedResult(e.oid(), ErrorKind.INVALID_REQUEST, e.getMessage()));
            else if (e.pgId() != null) out.send(Frames.pgEvent("pg_failed", e.pgId(), e.getMessage()));
            else {
                LOG.warning(describe() + " sent a bad one-way message: " + e.getMessage());
            }
            return;
        }
        try {
            dispatch(request, frame);
        } catch (RequestException e) {
            if (request.rid() >= 0) out.send(Frames.error(request.rid(), e.kind(), e.getMessage()));
            else LOG.warning(describe() + ": " + e.getMessage());
        } catch (BadRequest e) {
            out.send(Frames.error(e.rid(), ErrorKind.INVALID_REQUEST, e.getMessage()));
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "bug while handling " + frame.op() + " from " + describe(), e);
            if (request.rid() >= 0) {
                out.send(Frames.error(request.rid(), ErrorKind.INTERNAL, "internal error in the beam daemon: " + e));
            }
        }
    }

    /**
     * A plain call or result (the header scanned by {@link RelayHeader}), forwarded
     * with the bytes it came with. Every call takes this path, so it is kept apart from
     * {@link #dispatch}'s switch over every op: a small method that the JIT compiles within a
     * fresh daemon's first calls, where the whole switch (~1 KB of bytecode) compiled late and
     * slowly, in those calls' tail (docs/PERFORMANCE.md, "Cold shape").
     */
    private void relay(RelayHeader relay, Frame frame) {
        try {
            if (relay.isCall()) {
                cluster.call(this, relay.actorId(), relay.oid(), relay.method(), relay.label(), new WireFrame(frame));
            } else {
                if (actorId == null) throw RequestException.value("only actor workers send results");
                if (!"ok".equals(relay.status())) cluster.callStats().failed();
                cluster.onResult(actorId, relay.oid(), "ok".equals(relay.status()), new WireFrame(frame));
            }
        } catch (RequestException e) {
            LOG.warning(describe() + ": " + e.getMessage()); // one-way: no reply to send
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "bug while handling " + relay.op() + " from " + describe(), e);
        }
    }

    private void dispatch(Request request, Frame frame) throws RequestException, BadRequest {
        switch (request) {
            case Request.Hello h -> out.send(Frames.error(h.rid(), ErrorKind.INVALID_REQUEST, "hello was already received"));
            case Request.CreateActor c -> {
                ActorRecord actor = cluster.createActor(this, c.actorId(), c.className(), c.name(), c.namespace(),
                        OptionsParser.parse(c.rid(), c.options()), frame.payload(), c.getIfExists());
                out.send(ActorHandle.reply(c.rid(), actor)); // the existing actor's, when get_if_exists found one
            }
            case Request.Call c -> cluster.call(this, c.actorId(), c.oid(), c.method(), c.label(), new WireFrame(frame));
            case Request.Lend l -> cluster.lendHandle(l.actorId());
            case Request.Borrow b -> cluster.borrowHandle(this, b.actorId(), b.lent());
            case Request.Release r -> cluster.releaseHandle(this, r.actorId());
            case Request.Kill k -> {
                cluster.kill(k.actorId());
                out.send(new Frame(Frames.ok(k.rid())));
            }
            case Request.GetActor g -> {
                ActorRecord actor = cluster.actorByName(g.name(), g.namespace() != null ? g.namespace() : namespace);
                out.send(ActorHandle.reply(g.rid(), actor));
            }
            case Request.PgCreate p -> GroupRequests.create(p, this, cluster, out);
            case Request.PgRemove p -> GroupRequests.remove(p, cluster, out);
            case Request.PgTable p -> GroupRequests.table(p, cluster, out);
            case Request.PgWatch p -> {
                cluster.watchGroup(this, p.pgId());
                out.send(new Frame(Frames.ok(p.rid())));
            }
            case Request.ClusterState s -> out.send(Frames.okWithBody(s.rid(), ClusterViews.state(cluster)));
            case Request.Status s -> out.send(Frames.okWithBody(s.rid(), ClusterViews.status(cluster)));
            case Request.Doctor d -> out.send(Frames.okWithBody(d.rid(), Doctor.run(cluster)));
            case Request.Logs l -> LogRequests.answer(cluster, l, out);
            case Request.Stack s -> out.send(Frames.okWithBody(s.rid(), Stacks.run(cluster.snapshot(), daemon.drivers().list(),
                    new Stacks.Filter(s.nodeIp(), s.actorId(), s.pid()), Stacks.askerOf(cluster))));
            case Request.StateList l -> out.send(StateRequests.list(l, cluster.snapshot()));
            case Request.StateSummary l -> out.send(StateRequests.summary(l, cluster.snapshot()));
            case Request.DaemonStats s -> {
                if (s.gc()) System.gc();
                out.send(Frames.okWithBody(s.rid(), DaemonStats.snapshot(cluster)));
            }
            case Request.Disconnect d -> {
                onClosed(); // what a dropped connection does, but before the driver goes on
                out.send(new Frame(Frames.ok(d.rid())));
            }
            case Request.Shutdown s -> {
                out.send(new Frame(Frames.ok(s.rid())));
                daemon.requestShutdown();
            }
            case Request.Metrics m -> {
                daemon.userMetrics().record(this, m.metrics()); // logs what it refuses
            }
            case Request.ActorReady r -> cluster.onActorReady(ownActor(r.actorId()), r.reprName());
            case Request.ActorFailed r -> cluster.onActorFailed(ownActor(r.actorId()), r.message());
            case Request.Result r -> {
                if (actorId == null) throw RequestException.value("only actor workers send results");
                if (!"ok".equals(r.status())) cluster.callStats().failed();
                // written again from the record: only the fields a result has go on to the caller
                Frame result = new Frame(RequestCodec.encode(r), frame.payload());
                cluster.onResult(actorId, r.oid(), "ok".equals(r.status()), new WireFrame(result));
            }
        }
    }

    private String ownActor(String id) throws RequestException {
        if (!id.equals(actorId)) throw RequestException.value("a worker may only report on its own actor");
        return id;
    }

    // ------------------------------------------------------------------ Client

    @Override
    public void push(Frame frame) {
        out.send(frame);
    }

    /** Ends the client's connection (its node was lost, or the daemon stops). */
    public void disconnect() {
        out.close();
    }

    @Override
    public String jobId() {
        return jobId;
    }

    @Override
    public String namespace() {
        return namespace;
    }

    @Override
    public boolean logToDriver() {
        return logToDriver;
    }

    @Override
    public boolean isDriver() {
        return actorId == null; // set by a worker's hello only, kept after the connection ends
    }

    @Override
    public String describe() {
        return (actorId != null ? "worker of actor " + actorId : "driver") + " pid " + pid; // role is "" once gone
    }

    @Override
    public ProcessContext processContext() {
        return processContext;
    }
}
