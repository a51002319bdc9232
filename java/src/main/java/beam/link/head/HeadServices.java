package beam.link.head;

import beam.cluster.Forwarded;
import beam.cluster.Cluster;
import beam.codec.Frame;
import java.util.Collection;
import java.util.Map;

/**
 * What the head's daemon provides to the head's end of the node links ({@link HeadGate},
 * {@link HeadLinkToMember}): the cluster nodes join, the head's node id, a session for each
 * client a joined node relays (link/ only carries its frames; the daemon's dispatch serves it),
 * and the reading of what a node reports that is not link business. The head's daemon
 * implements it ({@code daemon/RelayedSessions}), so link/ imports nothing above the domain.
 * Its counterpart on a joined node is {@code link/member/MemberServices}.
 */
public interface HeadServices {
    Cluster cluster();

    String headNodeId();

    /** A client of the joined node {@code nodeId} opened; what it is sent goes to {@code out}. */
    RelayedClient openClient(String nodeId, String nodeIp, String sessionDir, ClientLine out);

    /** The node is lost: all its clients are gone at once (the cluster hears them together). */
    void clientsGone(Collection<RelayedClient> clients);

    /** The node's Python-side versions arrived. */
    void nodeVersions(String nodeId, Map<String, String> versions);

    /** An actor's {@code log} frame from the node, as the domain forwards it to the actor's owner. */
    Forwarded actorOutput(Frame log);

    /** One relayed client, as the head serves it. */
    interface RelayedClient {
        void onFrame(Frame frame);

        void onClosed();
    }

    /** The way back to one relayed client, over its node's link. */
    interface ClientLine {
        /** Queues a frame; never blocks. */
        void send(Frame frame);

        /** Ends the client's connection once what is queued has been sent. */
        void close();
    }
}
