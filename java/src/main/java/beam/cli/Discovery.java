package beam.cli;

import beam.config.Environment;
import beam.codec.FrameCodec;
import beam.daemon.SessionDir;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Which local daemon {@code ray status}, {@code ray list} and {@code ray doctor} talk to; the
 * same rule as ray/_beam/launch/discovery.py for {@code ray.init()} (docs/DESIGN.md, "Finding the
 * cluster"): with an address ({@code --address}, else RAY_ADDRESS), the local daemon serving
 * it; else the daemon of the temp dir ({@link Paths}); when the user chose that folder
 * (flag or RAY_TMPDIR), only it. Otherwise, if none runs there, every daemon of this user on
 * this machine (found in /proc, private clusters of one driver left out): exactly one is
 * taken, several are listed. None of those: the private cluster of a driver running with the
 * same temp dir ({@code ray.init()} started it), as Ray's CLI finds a cluster a driver
 * started. Only daemons whose files are this user's own count ({@link TrustedPaths}).
 */
final class Discovery {
    private Discovery() {
    }

    /** Ray's words when nothing runs (services.canonicalize_bootstrap_address_or_die). */
    static final String NONE = "Could not find any running Ray instance. Please specify the one to connect to by setting "
            + "the `--address` flag or `RAY_ADDRESS` environment variable.";

    /** A running daemon: its process, temp dir and node.json. */
    record Found(long pid, Path tempDir, ObjectNode node) {
        String line() {
            return "  " + node.path("address").asText() + "  temp dir " + tempDir + "  started " + node.path("start_time").asText("?")
                    + "  (pid " + pid + ")";
        }
    }

    /** The node.json of the daemon {@code command} should talk to, or null after printing why there is none. */
    static ObjectNode find(Environment env, String flag, String command) {
        return find(env, flag, command, null);
    }

    /** The same, for {@code address} (HOST:PORT; null: RAY_ADDRESS; "auto" or none: as if not given). */
    static ObjectNode find(Environment env, String flag, String command, String address) {
        if (address == null) address = env.get(Environment.ADDRESS);
        if (address != null && address.startsWith("ray://")) address = address.substring("ray://".length());
        boolean named = address != null && !address.isBlank() && !address.equals("auto") && !address.equals("local");
        Path temp = Paths.tempDir(flag, env);
        String bad = TrustedPaths.problem(temp, "temp dir");
        if (bad != null) {
            System.err.println(bad);
            return null;
        }
        if (Paths.chosen(flag, env) && !Files.isDirectory(temp)) {
            System.err.println("beam: the temp dir " + temp + " does not exist (or is not a folder); nothing runs there. "
                    + "Start a cluster with `ray start --head --temp-dir " + temp + "`.");
            return null;
        }
        Found here = runningIn(temp, true);
        if (named) {
            List<Found> candidates = new ArrayList<>(Paths.chosen(flag, env) ? List.of() : elsewhere(temp));
            candidates.addAll(privateOf(temp));
            return serving(address, here, candidates);
        }
        if (here != null) return here.node();
        List<Found> others = elsewhere(temp);
        if (Paths.chosen(flag, env) || others.isEmpty()) {
            List<Found> privates = privateOf(temp);
            if (privates.size() == 1) return privates.get(0).node();
            if (privates.size() > 1) {
                System.err.println(several(privates, command));
                return null;
            }
            String hint = LocalDaemons.elsewhereHint(temp, command, others.stream()
                    .flatMap(f -> ProcessHandle.of(f.pid()).stream()).toList());
            System.err.println(!hint.isEmpty() ? hint : "beam: " + NONE + " (looked in " + temp
                    + "/session_latest and for beam daemons of yours on this machine; start one with `ray start --head`.)");
            return null;
        }
        if (others.size() == 1) return others.get(0).node();
        System.err.println(several(others, command));
        return null;
    }

    /** The daemon among {@code here} and {@code others} whose cluster address is {@code address}, or null after saying so. */
    private static ObjectNode serving(String address, Found here, List<Found> others) {
        List<Found> all = new ArrayList<>(others);
        if (here != null) all.add(0, here);
        // Several nodes of one cluster on this machine (ray.cluster_utils.Cluster) all serve its
        // address: the one whose IP the address names is the head, which Ray's drivers reach first.
        String host = address.substring(0, Math.max(0, address.lastIndexOf(':')));
        ObjectNode anyServing = null;
        for (Found f : all) {
            if (!sameAddress(f.node(), address)) continue;
            if (f.node().path("node_ip").asText().equals(host)) return f.node();
            if (anyServing == null) anyServing = f.node();
        }
        if (anyServing != null) return anyServing;
        System.err.println("beam: no beam daemon of yours on this machine serves the cluster at " + address
                + (all.isEmpty() ? "" : "; running here: " + String.join(", ",
                        all.stream().map(f -> f.node().path("address").asText() + " (temp dir " + f.tempDir() + ")").toList()))
                + ". The CLI talks to this machine's daemon: run it on a node of that cluster, or unset RAY_ADDRESS.");
        return null;
    }

    /** Whether {@code node}'s cluster is at {@code address}: the same text, or its port on a name of this host. */
    static boolean sameAddress(ObjectNode node, String address) {
        String own = node.path("address").asText();
        if (own.equals(address)) return true;
        int colon = address.lastIndexOf(':');
        int ownColon = own.lastIndexOf(':');
        if (colon < 0 || ownColon < 0 || !address.substring(colon).equals(own.substring(ownColon))) return false;
        String host = address.substring(0, colon);
        return List.of("localhost", "127.0.0.1", node.path("node_ip").asText(), hostname()).contains(host);
    }

    private static String hostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    static String several(List<Found> found, String command) {
        TreeSet<String> addresses = new TreeSet<>();
        found.forEach(f -> addresses.add(f.node().path("address").asText()));
        StringBuilder out = new StringBuilder("beam: Found multiple active Ray instances: " + addresses
                + ". Please specify the one to connect to by setting the `--address` flag or `RAY_ADDRESS` environment variable.");
        for (Found f : found) out.append('\n').append(f.line());
        out.append("\nPick one with `ray ").append(command).append(" --address <address>` or `--temp-dir <temp dir>`"
                + " (RAY_ADDRESS=<address> or RAY_TMPDIR=<temp dir> for drivers and the CLI alike).");
        return out.toString();
    }

    /**
     * The daemons of this user running elsewhere than {@code temp}: private clusters left
     * out, and daemons of another network namespace, which is another host's (the multi-host
     * tests' hosts are namespaces) with addresses that are not ours.
     */
    static List<Found> elsewhere(Path temp) {
        List<Found> found = new ArrayList<>();
        String net = netns("self");
        for (ProcessHandle h : LocalDaemons.all()) {
            if (LocalDaemons.isPrivate(h) || !net.equals(netns(String.valueOf(h.pid())))) continue;
            Path dir = Path.of(LocalDaemons.tempDirOf(h));
            if (dir.equals(temp)) continue;
            Found f = ofPid(dir, h.pid());
            if (f != null) found.add(f);
        }
        return found;
    }

    /**
     * Private clusters ({@code ray.init()}'s, {@code --owner-pid}) whose driver runs with the
     * temp dir {@code temp}: a Ray driver finds the cluster another one started in the same
     * temp dir, so a second driver and the CLI join it here.
     */
    static List<Found> privateOf(Path temp) {
        List<Found> found = new ArrayList<>();
        String net = netns("self");
        for (ProcessHandle h : LocalDaemons.all()) {
            if (!LocalDaemons.isPrivate(h) || !net.equals(netns(String.valueOf(h.pid())))) continue;
            boolean sameTemp = LocalDaemons.ownerOf(h).map(o -> Path.of(LocalDaemons.tempDirOf(o)).equals(temp)).orElse(false);
            if (!sameTemp) continue;
            Found f = ofPid(Path.of(LocalDaemons.tempDirOf(h)), h.pid());
            if (f != null) found.add(f);
        }
        return found;
    }

    /**
     * The daemon whose newest session is in {@code temp}, if it runs (a beam daemon of this
     * user: a stale node.json, or one whose pid now belongs to another process, is ignored)
     * and every file on the way is trusted; {@code say} prints why a found one is refused.
     */
    static Found runningIn(Path temp, boolean say) {
        Path latest = temp.resolve("session_latest");
        ObjectNode node = trustedNode(latest, say);
        if (node == null) return null;
        long pid = node.path("pid").asLong();
        return running(pid) ? new Found(pid, temp, node) : null;
    }

    /** The daemon {@code pid}'s node.json under {@code temp}: in session_latest, else in its session_*_PID. */
    private static Found ofPid(Path temp, long pid) {
        Found latest = runningIn(temp, false);
        if (latest != null && latest.pid() == pid) return latest;
        try (DirectoryStream<Path> sessions = Files.newDirectoryStream(temp, "session_*_" + pid)) {
            for (Path s : sessions) {
                ObjectNode node = trustedNode(s, false);
                if (node != null && node.path("pid").asLong() == pid) return new Found(pid, temp, node);
            }
        } catch (IOException e) {
            // not readable: not ours to use
        }
        return null;
    }

    private static String netns(String pid) {
        try {
            return Files.readSymbolicLink(Path.of("/proc", pid, "ns", "net")).toString();
        } catch (IOException | RuntimeException e) {
            return "?" + pid; // unknown: matches nothing but itself
        }
    }

    private static ObjectNode trustedNode(Path session, boolean say) {
        Path nodeJson = session.resolve("node.json");
        if (!Files.isRegularFile(nodeJson)) return null;
        for (Path p : List.of(session, nodeJson)) {
            String bad = TrustedPaths.problem(p, p == nodeJson ? "node.json" : "session dir");
            if (bad != null) {
                if (say) System.err.println(bad);
                return null;
            }
        }
        try {
            ObjectNode node = (ObjectNode) FrameCodec.json().readTree(nodeJson.toFile());
            String bad = TrustedPaths.problem(Path.of(node.path("socket").asText()), "socket");
            if (bad != null) {
                if (say) System.err.println(bad);
                return null;
            }
            return node;
        } catch (IOException | ClassCastException e) {
            return null;
        }
    }

    private static boolean running(long pid) {
        return SessionDir.isRunning(pid) && ProcessHandle.of(pid).filter(h -> LocalDaemons.isDaemon(h) && LocalDaemons.isMine(h)).isPresent();
    }
}
