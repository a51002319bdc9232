package beam.dispatch;

import beam.cluster.Cluster;
import beam.cluster.RequestException;
import beam.protocol.Frames;
import beam.protocol.Request;
import beam.util.ErrorKind;
import beam.views.Stacks;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A session's {@code stack} request (ray stack), answered on a virtual thread of its own: the
 * nodes' dumps take up to seconds, and a client relayed from a joined node is served on that
 * node's link thread, the very thread the node's answer arrives on.
 */
final class StackRequests {
    private static final Logger LOG = Logger.getLogger(StackRequests.class.getName());

    private StackRequests() {
    }

    static void serve(Request.Stack s, Cluster cluster, ConnectedDrivers drivers, FrameSink out, String who) {
        Thread.ofVirtual().name("ray stack").start(() -> {
            try {
                out.send(Frames.okWithBody(s.rid(), Stacks.run(cluster.snapshot(), drivers.list(),
                        new Stacks.Filter(s.nodeIp(), s.actorId(), s.pid()), Stacks.askerOf(cluster))));
            } catch (RequestException e) {
                out.send(Frames.error(s.rid(), e.kind(), e.getMessage()));
            } catch (RuntimeException e) {
                LOG.log(Level.SEVERE, "bug while handling stack from " + who, e);
                out.send(Frames.error(s.rid(), ErrorKind.INTERNAL, "internal error in the beam daemon: " + e));
            }
        });
    }
}
