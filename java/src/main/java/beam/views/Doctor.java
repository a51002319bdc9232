package beam.views;

import beam.cluster.CallSnapshot;
import beam.cluster.Cluster;
import beam.cluster.ClusterSnapshot;
import beam.cluster.NodeAccelerator;
import beam.cluster.NodeSnapshot;
import beam.protocol.FactsCodec;
import beam.util.DeviceTelemetry;
import beam.util.HostFacts;
import beam.util.NodeQuestion.Probe;
import beam.util.NodeQuestion.ProbeResult;
import beam.util.NodeQuestion.ProbeResults;
import beam.util.NodeQuestion.ProbeTarget;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * `ray doctor`: checks what most often breaks multi-node vLLM. Every live node connects to
 * every other node's probe port on its node IP (as NCCL and Gloo will); each node IP must
 * be an address of an interface on its host (the NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME
 * hint names it); versions must match the head's; GPU visibility is shown per node; each
 * host's /dev/shm, limits and NCCL/Gloo/vLLM variables pass {@link HostChecks}.
 * Returns a report with {@code problems} (empty when all is well). It reads the nodes from
 * one copy taken under the cluster's lock (their facts and telemetry with them) and asks them
 * through {@link Cluster#ask}; it never holds the lock itself.
 */
public final class Doctor {
    static final long PROBE_WAIT_SECONDS = 8;
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private Doctor() {
    }

    public static ObjectNode run(Cluster cluster) {
        List<NodeSnapshot> nodes = cluster.liveNodeSnapshots();
        ObjectNode report = F.objectNode();
        ArrayNode problems = report.putArray("problems");
        ArrayNode warnings = report.putArray("warnings");
        ArrayNode nodeReports = report.putArray("nodes");
        List<HostChecks.Reported> hosts = new ArrayList<>();
        for (NodeSnapshot n : nodes) {
            ObjectNode r = nodeReports.addObject();
            r.put("node_id", n.id());
            r.put("node_ip", n.ip());
            r.put("is_head", n.head());
            HostFacts facts = n.facts();
            r.set("versions", FactsCodec.versions(facts.versions()));
            r.set("accelerators", FactsCodec.reportedAccelerators(facts.accelerators()));
            r.set("host_limits", FactsCodec.limits(facts.hostLimits()));
            hosts.add(new HostChecks.Reported(n.ip(), facts.hostLimits()));
            String nic = facts.nodeIpInterface();
            r.put("interface", nic);
            if (nic == null) {
                problems.add("node " + n.ip() + ": its node IP is not an address of any interface on its host; other hosts "
                        + "cannot reach it there. Start it with --node-ip-address set to one of: " + addresses(facts));
            } else if (!nic.equals("lo")) {
                r.put("hint", "export NCCL_SOCKET_IFNAME=" + nic + " GLOO_SOCKET_IFNAME=" + nic);
            }
            if (facts.probeError() != null) problems.add("node " + n.ip() + ": " + facts.probeError());
            if (facts.versionWarnings() != null) {
                for (String w : facts.versionWarnings()) problems.add("version mismatch: " + w);
            }
            DeviceTelemetry telemetry = n.telemetry();
            if (telemetry.tool() != null) r.set("telemetry", FactsCodec.telemetry(telemetry));
            if (telemetry.problem() != null) problems.add("node " + n.ip() + ": " + telemetry.problem());
            facts.accelerators().forEach((resource, a) -> {
                if (!NodeAccelerator.DECLARED.equals(a.source()) || a.ids().isEmpty()) return;
                r.put("accelerator_note", a.ids().size() + " " + a.vendor() + " " + resource
                        + " declared on `ray start` and not detected: beam assumed ids "
                        + F.arrayNode().addAll(a.ids().stream().map(F::textNode).toList())
                        + " and did not check the devices exist");
            });
        }
        HostChecks.Findings host = HostChecks.check(hosts);
        host.problems().forEach(problems::add);
        host.warnings().forEach(warnings::add);
        long now = System.currentTimeMillis();
        ClusterSnapshot snapshot = cluster.snapshot();
        for (CallSnapshot c : LongCalls.suspects(snapshot, now)) problems.add("long call: " + LongCalls.describe(c, now));
        report.set("long_calls", LongCalls.rows(snapshot, now));
        report.set("reachability", probeAll(cluster, nodes, problems));
        return report;
    }

    private static ArrayNode probeAll(Cluster cluster, List<NodeSnapshot> nodes, ArrayNode problems) {
        Map<NodeSnapshot, CompletableFuture<ProbeResults>> pending = new LinkedHashMap<>();
        for (NodeSnapshot from : nodes) {
            List<ProbeTarget> targets = new ArrayList<>();
            for (NodeSnapshot to : nodes) {
                if (!to.id().equals(from.id())) targets.add(new ProbeTarget(to.id(), to.ip(), to.facts().probePort()));
            }
            if (!targets.isEmpty()) pending.put(from, cluster.ask(from.id(), new Probe(targets)));
        }
        ArrayNode matrix = F.arrayNode();
        for (Map.Entry<NodeSnapshot, CompletableFuture<ProbeResults>> e : pending.entrySet()) {
            ProbeResults results;
            try {
                results = e.getValue().get(PROBE_WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException ex) {
                problems.add("node " + e.getKey().ip() + " did not answer the reachability probe in " + PROBE_WAIT_SECONDS + " s");
                continue;
            } catch (Exception ex) {
                Throwable why = ex.getCause() != null ? ex.getCause() : ex;
                problems.add("node " + e.getKey().ip() + " could not run the reachability probe: " + why.getMessage());
                continue;
            }
            for (ProbeResult r : results.results()) {
                ObjectNode row = matrix.addObject();
                row.put("from", e.getKey().ip());
                row.put("to", r.address());
                row.put("ok", r.ok());
                if (r.millis() != null) row.put("ms", r.millis());
                if (!r.ok()) {
                    row.put("error", r.error());
                    problems.add(e.getKey().ip() + " cannot reach " + r.address() + " over TCP: "
                            + r.error() + " (check firewalls, routes and --node-ip-address)");
                }
            }
        }
        return matrix;
    }

    private static String addresses(HostFacts facts) {
        List<String> all = new ArrayList<>();
        for (HostFacts.Interface nic : facts.interfaces()) {
            for (String a : nic.addresses()) all.add(a + " (" + nic.name() + ")");
        }
        return all.isEmpty() ? "(no interface found)" : String.join(", ", all);
    }
}
