package beam.dispatch;

import beam.cluster.Client;
import beam.cluster.Cluster;
import beam.cluster.RequestException;
import beam.cluster.Resources;
import beam.codec.Frame;
import beam.protocol.Frames;
import beam.protocol.Request;
import beam.protocol.Request.BadRequest;
import beam.views.GroupViews;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * A session's placement-group requests. {@code pg_create} and {@code pg_remove} come either
 * as requests (with a rid: answered, a refusal is the error reply) or one-way (the shim's fast
 * path for its own groups, no rid): then a refused create comes back as {@code pg_failed},
 * which fails the group's {@code ready()}, and a refused remove as a {@code warning}.
 */
final class GroupRequests {
    private GroupRequests() {
    }

    static void create(Request.PgCreate p, Client me, Cluster cluster, FrameSink out)
            throws RequestException, BadRequest {
        try {
            List<Resources> bundles = OptionsParser.bundles(p.rid(), p.bundles());
            cluster.createGroup(me, p.pgId(), p.name() == null ? "" : p.name(), p.strategy(), bundles,
                    OptionsParser.bundleSelectors(p.rid(), p.bundleLabelSelector(), bundles.size()), p.detached());
        } catch (RequestException | BadRequest e) {
            if (p.rid() >= 0) throw e;
            out.send(Frames.pgEvent("pg_failed", p.pgId(), e.getMessage()));
            return;
        }
        if (p.rid() >= 0) out.send(new Frame(Frames.ok(p.rid())));
    }

    static void remove(Request.PgRemove p, Cluster cluster, FrameSink out) throws RequestException {
        try {
            cluster.removeGroup(p.pgId());
        } catch (RequestException e) {
            if (p.rid() >= 0) throw e;
            ObjectNode warning = Frames.header("warning");
            warning.put("message", "remove_placement_group: " + e.getMessage());
            out.send(new Frame(warning));
            return;
        }
        if (p.rid() >= 0) out.send(new Frame(Frames.ok(p.rid())));
    }

    static void table(Request.PgTable p, Cluster cluster, FrameSink out) throws RequestException {
        if (p.pgId() == null) { // every group: compact rows (views.GroupViews)
            out.send(Frames.okWithBody(p.rid(), GroupViews.rows(cluster.allGroups())));
            return;
        }
        ObjectNode reply = Frames.ok(p.rid());
        reply.set("table", GroupViews.entry(cluster.group(p.pgId())));
        out.send(new Frame(reply));
    }
}
