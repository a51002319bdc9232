package beam.views;

import beam.util.HostFacts.Limits;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * `ray doctor`'s checks of the host settings that make vLLM hang or fail across hosts with
 * no error of their own, from each node's {@code host_limits} facts: a small /dev/shm, low
 * open-files and locked-memory limits, NCCL / Gloo variables that differ between nodes, and
 * a VLLM_HOST_IP that is not the node's IP. Each finding names the node and the fix.
 */
public final class HostChecks {
    static final long MIN_SHM_BYTES = 1L << 30;
    static final long MIN_OPEN_FILES = 65_536;

    private HostChecks() {
    }

    /** One node's IP and the limits it reported ({@link Limits#NONE} if none). */
    record Reported(String ip, Limits limits) {
    }

    /** What `ray doctor` fails for ({@code problems}: exit 1) and what it only mentions ({@code warnings}). */
    record Findings(List<String> problems, List<String> warnings) {
    }

    static Findings check(List<Reported> nodes) {
        Findings found = new Findings(new ArrayList<>(), new ArrayList<>());
        List<Reported> reporting = nodes.stream().filter(n -> n.limits().reported()).toList();
        for (Reported n : reporting) perNode(n, found);
        differing(reporting, found.problems());
        return found;
    }

    private static void perNode(Reported n, Findings found) {
        List<String> problems = found.problems();
        Limits l = n.limits();
        String node = "node " + n.ip() + ": ";
        if (l.shmError() != null) problems.add(node + l.shmError());
        if (l.shmBytes() != null && l.shmBytes() < MIN_SHM_BYTES) {
            problems.add(node + l.shmPath() + " is " + bytes(l.shmBytes())
                    + " (under 1 GiB): vLLM and NCCL use /dev/shm; in Docker pass --shm-size=16g (or --ipc=host), "
                    + "or mount a larger tmpfs on /dev/shm");
        }
        if (l.limitsError() != null) problems.add(node + l.limitsError());
        long files = l.openFiles() != null ? l.openFiles() : Limits.UNLIMITED;
        if (files != Limits.UNLIMITED && files < MIN_OPEN_FILES) {
            problems.add(node + "the open-files limit (ulimit -n) is " + files + ", under " + MIN_OPEN_FILES
                    + ": vLLM, NCCL and the workers' sockets run out of descriptors; run `ulimit -n " + MIN_OPEN_FILES
                    + "` (or more) in the shell that runs `ray start`, or pass Docker --ulimit nofile=" + MIN_OPEN_FILES
                    + ":" + MIN_OPEN_FILES);
        }
        long locked = l.lockedMemory() != null ? l.lockedMemory() : Limits.UNLIMITED;
        if (locked != Limits.UNLIMITED) {
            // the owner's decision: it fails the check only where NCCL can use RDMA
            int rdma = l.rdmaDevices() != null ? l.rdmaDevices() : 0;
            String finding = node + "the locked-memory limit (ulimit -l) is " + bytes(locked) + ", not unlimited: NCCL over "
                    + "RDMA (InfiniBand, RoCE) pins its buffers and fails or falls back to TCP; run `ulimit -l unlimited` "
                    + "in the shell that runs `ray start`, or pass Docker --ulimit memlock=-1";
            if (rdma > 0) problems.add(finding + " (this host has " + rdma + " RDMA device(s) in /sys/class/infiniband)");
            else found.warnings().add(finding + " (only a warning: this host has no RDMA device in /sys/class/infiniband)");
        }
        String vllmIp = l.env().getOrDefault("VLLM_HOST_IP", "");
        if (!vllmIp.isBlank() && !vllmIp.equals(n.ip())) {
            problems.add(node + "VLLM_HOST_IP=" + vllmIp + " is not this node's IP: vLLM's placement group will ask for "
                    + "node:" + vllmIp + " and wait forever; set VLLM_HOST_IP=" + n.ip() + " in the shell that runs "
                    + "`ray start` there, or start that node with --node-ip-address " + vllmIp);
        }
    }

    /** NCCL_* and GLOO_SOCKET_IFNAME must agree across nodes (VLLM_HOST_IP differs by design). */
    private static void differing(List<Reported> nodes, List<String> problems) {
        if (nodes.size() < 2) return;
        TreeSet<String> names = new TreeSet<>();
        for (Reported n : nodes) {
            n.limits().env().keySet().forEach(k -> {
                if (!k.equals("VLLM_HOST_IP")) names.add(k);
            });
        }
        for (String name : names) {
            Map<String, List<String>> byValue = new LinkedHashMap<>();
            for (Reported n : nodes) {
                String v = n.limits().env().getOrDefault(name, "(unset)");
                byValue.computeIfAbsent(v, k -> new ArrayList<>()).add(n.ip());
            }
            if (byValue.size() < 2) continue;
            List<String> where = new ArrayList<>();
            byValue.forEach((value, ips) -> where.add(value + " on " + String.join(", ", ips)));
            problems.add(name + " differs between nodes: " + String.join("; ", where) + ". Hosts whose NCCL or Gloo "
                    + "settings disagree pick different interfaces or transports and hang in set-up; set it the same in "
                    + "the shell that runs `ray start` on every host (an interface name may differ only where the hosts' "
                    + "interfaces are really named differently)");
        }
    }

    /** "64 MiB", "8 MiB", "1.5 GiB": sizes as people write them. */
    public static String bytes(long n) {
        if (n >= 1L << 30) return trim(n / (double) (1L << 30)) + " GiB";
        if (n >= 1L << 20) return trim(n / (double) (1L << 20)) + " MiB";
        if (n >= 1L << 10) return trim(n / (double) (1L << 10)) + " KiB";
        return n + " B";
    }

    private static String trim(double v) {
        String s = String.format(java.util.Locale.ROOT, "%.1f", v);
        return s.endsWith(".0") ? s.substring(0, s.length() - 2) : s;
    }
}
