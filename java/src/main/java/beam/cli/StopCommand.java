package beam.cli;

import beam.config.Environment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ray stop}: stops this machine's beam daemons and, with them, their actors.
 *
 * <p>Which daemons: with {@code --temp-dir} or {@code RAY_TMPDIR}, only the one whose
 * node.json is under that folder. With neither, as with Ray's {@code ray stop}, every beam
 * daemon of this user on this machine, whatever temp dir it was started with (found through
 * its command line in /proc), the default folder's first. A folder that names no running
 * daemon while others run gets a message naming them and the flag that reaches them.
 *
 * <p>SIGTERM lets each daemon stop its actors itself; whatever is left after the grace
 * period, or at once with {@code --force}, gets SIGKILL.
 */
@Command(name = "stop", addMethodSubcommands = false, description = "Stop the beam daemons on this machine and their actors.")
public final class StopCommand implements Callable<Integer> {
    private final Environment env;

    StopCommand(Environment env) {
        this.env = env;
    }

    private static final long GRACE_SECONDS = 10;

    @Option(names = {"-f", "--force"}, description = "Kill at once with SIGKILL.")
    boolean force;

    @Option(names = "--temp-dir", description = "Stop only the daemon whose sessions are in this folder "
            + "(default: $RAY_TMPDIR; with neither, every beam daemon of this user on this machine).")
    String tempDir;

    @Option(names = {"-g", "--grace-period", "-v", "--verbose", "--log-style", "--log-color"}, arity = "0..1",
            hidden = true)
    List<String> ignored;

    @Override
    public Integer call() throws Exception {
        Path temp = Paths.tempDir(tempDir, env);
        boolean folderChosen = Paths.chosen(tempDir, env);
        Map<Long, ProcessHandle> daemons = new LinkedHashMap<>();
        inFolder(temp).ifPresent(h -> daemons.put(h.pid(), h));
        List<ProcessHandle> elsewhere = LocalDaemons.all().stream().filter(h -> !daemons.containsKey(h.pid())).toList();
        if (!folderChosen) elsewhere.forEach(h -> daemons.put(h.pid(), h));
        if (daemons.isEmpty()) {
            String hint = LocalDaemons.elsewhereHint(temp, "stop", elsewhere);
            if (!hint.isEmpty()) System.err.println(hint);
            System.out.println("Did not find any active beam processes.");
            return 0;
        }
        // Signal every daemon first, then wait for each: their grace periods overlap.
        List<Stopping> stopping = new ArrayList<>();
        for (ProcessHandle daemon : daemons.values()) {
            List<ProcessHandle> family = daemon.descendants().toList();
            boolean signalled = force ? daemon.destroyForcibly() : daemon.destroy();
            if (signalled) stopping.add(new Stopping(daemon, family));
            else System.err.println("beam: could not signal the daemon (pid " + daemon.pid() + "); is it yours?");
        }
        int total = 0;
        int killed = 0;
        int failed = daemons.size() - stopping.size();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(force ? 5 : GRACE_SECONDS);
        for (Stopping s : stopping) {
            if (!awaitExit(s.daemon(), deadline)) {
                System.err.println("beam: the daemon (pid " + s.daemon().pid() + ") did not stop within "
                        + (force ? 5 : GRACE_SECONDS) + " s; killing it.");
                s.daemon().destroyForcibly();
                if (!awaitExit(s.daemon(), System.nanoTime() + TimeUnit.SECONDS.toNanos(5))) {
                    System.err.println("beam: the daemon (pid " + s.daemon().pid() + ") is still running after SIGKILL.");
                    failed++;
                    continue;
                }
            }
            for (ProcessHandle p : s.family()) {
                if (p.isAlive()) {
                    p.destroyForcibly();
                    killed++;
                }
            }
            for (ProcessHandle p : s.family()) awaitExit(p, System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
            total += 1 + s.family().size();
        }
        if (total > 0) {
            System.out.println("Stopped all " + total + " beam processes"
                    + (killed > 0 ? " (" + killed + " needed SIGKILL)." : "."));
        }
        return failed == 0 ? 0 : 1;
    }

    /** A daemon signalled to stop, and the processes it had started then. */
    private record Stopping(ProcessHandle daemon, List<ProcessHandle> family) {
    }

    /** Whether {@code h} exited before {@code deadline} (System.nanoTime). */
    private static boolean awaitExit(ProcessHandle h, long deadline) throws InterruptedException {
        try {
            h.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException | ExecutionException e) {
            return !h.isAlive();
        }
    }

    /** The daemon whose node.json is under {@code temp}, if it runs. */
    private static Optional<ProcessHandle> inFolder(Path temp) {
        Discovery.Found running = Discovery.runningIn(temp, false);
        return running == null ? Optional.empty() : ProcessHandle.of(running.pid());
    }
}
