package beam.daemon;

import beam.cluster.ActorOutput;
import beam.cluster.Cluster;
import beam.codec.Frame;
import beam.dispatch.DaemonContext;
import beam.dispatch.FrameSink;
import beam.dispatch.Origin;
import beam.dispatch.Session;
import beam.dispatch.WireFrame;
import beam.link.HeadSide;
import beam.views.VersionCheck;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Collection;
import java.util.List;

/**
 * The head's side of its node links, as link/ asks for it: each client a joined node relays
 * is a {@link Session} of the head's dispatch, and what a node reports is read here by the
 * layers that own it (views/ checks its versions, dispatch/ unwraps its actors' output).
 */
final class RelayedSessions implements HeadSide {
    private final DaemonContext daemon;

    RelayedSessions(DaemonContext daemon) {
        this.daemon = daemon;
    }

    /** A relayed client's session, as the link holds it. */
    private record Relayed(Session session) implements RelayedClient {
        @Override
        public void onFrame(Frame frame) {
            session.onFrame(frame);
        }

        @Override
        public void onClosed() {
            session.onClosed();
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
        return new Relayed(new Session(sink, daemon, new Origin(nodeId, nodeIp, sessionDir)));
    }

    @Override
    public void clientsGone(Collection<RelayedClient> clients) {
        List<Session> sessions = clients.stream().map(c -> ((Relayed) c).session()).toList();
        Session.allClosed(daemon.cluster(), sessions);
    }

    @Override
    public void nodeVersions(String nodeId, JsonNode versions) {
        VersionCheck.record(daemon.cluster(), nodeId, versions);
    }

    @Override
    public ActorOutput actorOutput(Frame log) {
        return WireFrame.output(log);
    }
}
