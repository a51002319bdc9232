package beam.util;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a node's daemon reported about its host, for {@code ray doctor}, version checks and
 * the node rows: at its join, then replaced field by field as more arrives (its HTTP ports,
 * its Python-side versions, the head's version warnings), each by its own typed link message.
 * Immutable: each change makes a new one. A record of util/ because both the link messages
 * (protocol/) and the domain (cluster/) carry it; its JSON (the join's {@code facts}, a node
 * row's {@code BeamFacts}) is written and read only by {@code protocol/FactsCodec}.
 *
 * @param versions        component to version ({@code beam}, {@code protocol}, {@code java}, Python packages);
 *                        a version is null where the package is not installed
 * @param interfaces      the host's network interfaces that are up, with their IPv4 addresses
 * @param nodeIpInterface the interface that carries the node IP, or null if none does
 * @param accelerators    per accelerator resource, what it is and the visibility variable the node started with
 * @param probePort       the port other nodes' reachability probes connect to, or -1
 * @param probeError      why the node could not listen for probes, or null
 * @param httpPorts       the HTTP face's ports by role ({@code metrics}, {@code agent}, ...), or null before they are known
 * @param versionWarnings each version that differs from the head's, or null before the check ran
 * @param hostLimits      shared memory, open-files and locked-memory limits, NCCL/Gloo/vLLM variables
 *                        ({@code node/HostLimits}); {@link Limits#NONE} when the node reported none
 */
public record HostFacts(Map<String, String> versions, List<Interface> interfaces, String nodeIpInterface,
                        Map<String, Accelerator> accelerators, int probePort, String probeError,
                        Map<String, Integer> httpPorts, List<String> versionWarnings, Limits hostLimits) {
    /** A node that reported nothing. */
    public static final HostFacts NONE = new HostFacts(Map.of(), List.of(), null, Map.of(), -1, null, null, null, Limits.NONE);

    /** A network interface and its IPv4 addresses. */
    public record Interface(String name, List<String> addresses) {
        public Interface {
            addresses = List.copyOf(addresses);
        }
    }

    /**
     * One accelerator resource of a node as it describes it (the domain's {@code cluster/NodeAccelerator}
     * with its kind spelt out): the kind's name, vendor and visibility variable, the model where
     * detection saw it, where the count came from, the device ids, and (in the facts only) the
     * value of the visibility variable the node itself was started with, or null.
     */
    public record Accelerator(String kind, String vendor, String type, String visibleVar, String source,
                              List<String> ids, String nodeVisibleValue) {
        public Accelerator {
            ids = List.copyOf(ids);
        }
    }

    /**
     * The host settings that break vLLM across hosts without an error of their own, as the
     * node's daemon found them at start ({@code node/HostLimits} measures them, {@code
     * views/HostChecks} judges them). Every number is null where it could not be read, and
     * then the matching error says why.
     *
     * @param shmPath      the shared-memory filesystem vLLM and NCCL put their buffers in
     * @param shmBytes     its size
     * @param shmError     why its size could not be read
     * @param openFiles    the soft open-files limit, -1 for unlimited
     * @param lockedMemory the soft locked-memory limit in bytes, -1 for unlimited
     * @param limitsError  why the limits could not be read
     * @param rdmaDevices  how many RDMA devices (InfiniBand, RoCE) the host has
     * @param env          the NCCL / Gloo / vLLM variables of the daemon's environment, by name
     * @param envLeftOut   how many such variables were left out (over the cap), or null
     */
    public record Limits(String shmPath, Long shmBytes, String shmError, Long openFiles, Long lockedMemory,
                         String limitsError, Integer rdmaDevices, Map<String, String> env, Integer envLeftOut) {
        /** A node that reported no limits. */
        public static final Limits NONE = new Limits(null, null, null, null, null, null, null, Map.of(), null);
        /** Unlimited, as a limit's value. */
        public static final long UNLIMITED = -1;

        public Limits {
            env = Collections.unmodifiableMap(new TreeMap<>(env));
        }

        public boolean reported() {
            return !equals(NONE);
        }
    }

    public HostFacts {
        versions = Collections.unmodifiableMap(new LinkedHashMap<>(versions)); // a version may be null
        interfaces = List.copyOf(interfaces);
        accelerators = Collections.unmodifiableMap(new LinkedHashMap<>(accelerators));
        httpPorts = httpPorts == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(httpPorts));
        versionWarnings = versionWarnings == null ? null : List.copyOf(versionWarnings);
        if (hostLimits == null) hostLimits = Limits.NONE;
    }

    /** These facts with {@code more} versions merged in key by key (a node's Python-side versions join its Java-side ones). */
    public HostFacts withVersions(Map<String, String> more) {
        Map<String, String> v = new LinkedHashMap<>(versions);
        v.putAll(more);
        return new HostFacts(v, interfaces, nodeIpInterface, accelerators, probePort, probeError, httpPorts,
                versionWarnings, hostLimits);
    }

    /** These facts with the HTTP face's ports. */
    public HostFacts withHttpPorts(Map<String, Integer> ports) {
        return new HostFacts(versions, interfaces, nodeIpInterface, accelerators, probePort, probeError, ports,
                versionWarnings, hostLimits);
    }

    /** These facts with the head's version warnings in place of the last. */
    public HostFacts withVersionWarnings(List<String> warnings) {
        return new HostFacts(versions, interfaces, nodeIpInterface, accelerators, probePort, probeError, httpPorts,
                warnings, hostLimits);
    }

    /** The HTTP face's port for {@code role}, or -1 while it is not known. */
    public int httpPort(String role) {
        return httpPorts == null ? -1 : httpPorts.getOrDefault(role, -1);
    }
}
