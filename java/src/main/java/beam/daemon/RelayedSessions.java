package beam.daemon;

import beam.cluster.Forwarded;
import beam.cluster.Cluster;
import beam.codec.Frame;
import beam.dispatch.DaemonContext;
import beam.dispatch.FrameSink;
import beam.dispatch.OffLoop;
import beam.dispatch.Origin;
import beam.dispatch.Session;
import beam.dispatch.WireFrame;
import beam.link.head.HeadServices;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * The head's side of its node links, as link/ asks for it: each client a joined node relays
 * is a {@link Session} of the head's dispatch, and what a node reports is read here by the
 * layers that own it (views/ checks its versions, dispatch/ unwraps its actors' output).
 */
final class RelayedSessions implements HeadServices {
    private static final Logger LOG = Logger.getLogger(RelayedSessions.class.getName());
    private final DaemonContext daemon;

    RelayedSessions(DaemonContext daemon) {
        this.daemon = daemon;
    }

    /**
     * Frames of one relayed client queued behind a request that waits. The link cannot pause
     * for one client, so a client that sends this many behind it is ended instead.
     */
    static final int MAX_BACKLOG = 1024;

    /**
     * A relayed client's session, as the link holds it. Its frames arrive on the node's link
     * thread, which also brings that node's heartbeats and its answers to the head's
     * questions: a request that waits (a doctor whose probe this very node must answer) runs
     * off it, in order ({@link OffLoop}), or the node would be declared lost.
     */
    private static final class Relayed implements RelayedClient, OffLoop.Owner {
        private final Session session;
        private final ClientLine out;
        private final OffLoop offLoop = new OffLoop(this, MAX_BACKLOG, "slow relayed request");

        Relayed(Session session, ClientLine out) {
            this.session = session;
            this.out = out;
        }

        @Override
        public void onFrame(Frame frame) {
            if (!offLoop.offer(frame)) frame(frame);
        }

        @Override
        public void onClosed() {
            if (!offLoop.offerEnd(null)) end(null);
        }

        @Override
        public void frame(Frame frame) {
            if (!session.isClosed()) session.onFrame(frame);
        }

        @Override
        public void end(Exception why) {
            session.onClosed();
        }

        @Override
        public void backlogFull() {
            LOG.warning(session.describe() + " sent " + MAX_BACKLOG + " frames behind a request that waits; ending it");
            Thread.ofVirtual().start(out::close); // not under the queue's lock; the node then closes the client
        }

        @Override
        public void drained() {
        }
    }

    @Override
    public Cluster cluster() {
        return daemon.cluster();
    }

    @Override
    public String headNodeId() {
        return daemon.nodeId();
    }

    @Override
    public RelayedClient openClient(String nodeId, String nodeIp, String sessionDir, ClientLine out) {
        FrameSink sink = new FrameSink() {
            @Override
            public void send(Frame frame) {
                out.send(frame);
            }

            @Override
            public void close() {
                out.close();
            }
        };
        return new Relayed(new Session(sink, daemon, new Origin(nodeId, nodeIp, sessionDir)), out);
    }

    @Override
    public void clientsGone(Collection<RelayedClient> clients) {
        List<Session> sessions = clients.stream().map(c -> ((Relayed) c).session).toList();
        Session.allClosed(daemon.cluster(), sessions);
    }

    @Override
    public void nodeVersions(String nodeId, Map<String, String> versions) {
        Daemon.recordVersions(daemon.cluster(), nodeId, versions);
    }

    @Override
    public Forwarded actorOutput(Frame log) {
        return new WireFrame(log);
    }
}
