package beam.cli;

import beam.daemon.SessionDir;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The beam daemons of this user on this machine, found by their command lines in /proc
 * rather than through a temp dir: {@code ray stop} without a folder stops them all (as Ray's
 * does), and a command pointed at a folder that holds no running daemon names the others.
 */
final class LocalDaemons {
    private LocalDaemons() {
    }

    /** Every running beam daemon of this user (the same numeric uid), other than this process. */
    static List<ProcessHandle> all() {
        Object me = uid(ProcessHandle.current().pid());
        long self = ProcessHandle.current().pid();
        if (me == null) return List.of(); // no /proc: nothing can be told apart safely
        return ProcessHandle.allProcesses()
                .filter(h -> h.pid() != self && isDaemon(h))
                .filter(h -> me.equals(uid(h.pid())))
                .filter(h -> SessionDir.isRunning(h.pid()))
                .toList();
    }

    /** Whether process {@code h} runs as this user (the same numeric uid). */
    static boolean isMine(ProcessHandle h) {
        Object uid = uid(h.pid());
        return uid != null && uid.equals(uid(ProcessHandle.current().pid()));
    }

    /** The owner's numeric uid of process {@code pid} (its /proc entry), or null. */
    private static Object uid(long pid) {
        try {
            return Files.getAttribute(Path.of("/proc", String.valueOf(pid)), "unix:uid");
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * A JVM running beam's CLI as a daemon: a {@code java} executable with arguments
     * {@code beam.cli.Main start ... --block} (not a wrapper, a tracer or a grep that names them).
     */
    static boolean isDaemon(ProcessHandle h) {
        boolean java = h.info().command().map(c -> Path.of(c).getFileName().toString().equals("java")).orElse(false);
        return java && h.info().arguments().map(List::of).map(args -> {
            int main = args.indexOf(Main.class.getName());
            return main >= 0 && args.size() > main + 1 && args.get(main + 1).equals("start") && args.contains("--block");
        }).orElse(false);
    }

    /**
     * For a command that found no daemon in {@code temp}: lines naming the daemons that run
     * elsewhere and the flag that reaches each, or an empty string when there are none.
     */
    static String elsewhereHint(Path temp, String command) {
        return elsewhereHint(temp, command, all());
    }

    /** The same, for daemons {@code others} already found. */
    static String elsewhereHint(Path temp, String command, List<ProcessHandle> others) {
        if (others.isEmpty()) return "";
        StringBuilder out = new StringBuilder("beam: no beam daemon keeps its sessions in " + temp + ", but "
                + (others.size() == 1 ? "one runs" : others.size() + " run") + " on this machine with another temp dir:");
        for (ProcessHandle h : others) {
            out.append("\n  pid ").append(h.pid()).append(": `ray ").append(command).append(" --temp-dir ")
                    .append(shellQuoted(tempDirOf(h))).append('`');
        }
        return out.toString();
    }

    /** {@code s} as one shell word: as it is when that is safe, else in single quotes. */
    static String shellQuoted(String s) {
        if (!s.isEmpty() && s.matches("[A-Za-z0-9_./:=@%+,-]+")) return s;
        return "'" + s.replace("'", "'\\''") + "'";
    }

    /** The temp dir a running daemon keeps its sessions in: {@link Paths}'s rule applied to its arguments and environment. */
    static String tempDirOf(ProcessHandle h) {
        List<String> args = h.info().arguments().map(List::of).orElse(List.of());
        String flag = null;
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i).equals("--temp-dir") && i + 1 < args.size()) flag = args.get(i + 1);
            else if (args.get(i).startsWith("--temp-dir=")) flag = args.get(i).substring("--temp-dir=".length());
        }
        Map<String, String> env = new HashMap<>();
        try {
            byte[] environ = Files.readAllBytes(Path.of("/proc", String.valueOf(h.pid()), "environ"));
            for (String entry : new String(environ, StandardCharsets.UTF_8).split("\0")) {
                int eq = entry.indexOf('=');
                if (eq > 0) env.put(entry.substring(0, eq), entry.substring(eq + 1));
            }
        } catch (IOException | RuntimeException e) {
            // not readable: the rule without its environment is the best guess
        }
        return Paths.tempDir(flag, env, cwdOf(h), TrustedPaths.myUid()).toString();
    }

    /** Whether {@code h} is a private cluster of one driver ({@code ray.init()} started it for itself). */
    static boolean isPrivate(ProcessHandle h) {
        return h.info().arguments().map(List::of).map(args -> args.contains("--owner-pid")).orElse(false);
    }

    /** The driver a private cluster {@code h} stops with (its {@code --owner-pid}), if it runs. */
    static Optional<ProcessHandle> ownerOf(ProcessHandle h) {
        List<String> args = h.info().arguments().map(List::of).orElse(List.of());
        int at = args.indexOf("--owner-pid");
        if (at < 0 || at + 1 >= args.size()) return Optional.empty();
        try {
            return ProcessHandle.of(Long.parseLong(args.get(at + 1)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static Path cwdOf(ProcessHandle h) {
        try {
            return Path.of("/proc", String.valueOf(h.pid()), "cwd").toRealPath();
        } catch (IOException | RuntimeException e) {
            return Path.of("/");
        }
    }
}
