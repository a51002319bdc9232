package beam.dispatch;

import beam.cluster.Cluster;
import beam.protocol.Frames;
import beam.protocol.Request;
import beam.util.ErrorKind;
import beam.views.ClusterLogs;

/**
 * A session's {@code logs} requests ({@code ray logs}). The read waits for the node that holds
 * the file, so {@link Request.Logs} is a {@link Request.MayWait}: this runs off the thread that reads the
 * client (for a joined node's client, the thread that also brings that node's answer).
 */
final class LogRequests {
    /** Bounds of one request, checked before any node is asked. */
    static final int MAX_LINES = 100_000;

    private LogRequests() {
    }

    static void answer(Cluster cluster, Request.Logs l, FrameSink out) {
        String bad = check(l);
        if (bad != null) {
            out.send(Frames.error(l.rid(), ErrorKind.INVALID_REQUEST, bad));
            return;
        }
        var ask = new ClusterLogs.Ask(l.actorId(), l.pid(), l.glob(), l.nodeIp(), l.nodeId(), l.stderr(), l.lines(),
                l.offset());
        try {
            out.send(Frames.okWithBody(l.rid(), ClusterLogs.read(cluster, ask)));
        } catch (ClusterLogs.Refused e) {
            out.send(Frames.error(l.rid(), ErrorKind.INVALID_REQUEST, e.getMessage()));
        }
    }

    private static String check(Request.Logs l) {
        int named = (l.actorId() != null ? 1 : 0) + (l.pid() != 0 ? 1 : 0) + (l.glob() != null ? 1 : 0);
        if (named > 1) return "name the log by one of 'actor_id', 'pid' or 'glob', not several";
        if (l.pid() < 0) return "'pid' must be a positive process id, not " + l.pid();
        if (l.lines() < 1 || l.lines() > MAX_LINES) return "'lines' must be 1.." + MAX_LINES + ", not " + l.lines();
        if (l.nodeIp() != null && l.nodeIp().length() > 64) return "'node_ip' is not an IP address";
        return null;
    }
}
