package beam.cli;

import beam.daemon.SessionDir;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ray stop}: stops this machine's daemon (found through node.json under the temp
 * dir) and, with it, its actors. SIGTERM lets the daemon stop its actors itself; whatever
 * is left after the grace period, or at once with {@code --force}, gets SIGKILL.
 */
@Command(name = "stop", addMethodSubcommands = false, description = "Stop the beam daemon on this machine and its actors.")
public final class StopCommand implements Callable<Integer> {
    private static final long GRACE_SECONDS = 10;

    @Option(names = {"-f", "--force"}, description = "Kill at once with SIGKILL.")
    boolean force;

    @Option(names = "--temp-dir", description = "Root of the session directories (default: $RAY_TMPDIR or /tmp/ray).")
    String tempDir;

    @Option(names = {"-g", "--grace-period", "-v", "--verbose", "--log-style", "--log-color"}, arity = "0..1",
            hidden = true)
    List<String> ignored;

    @Override
    public Integer call() throws Exception {
        ObjectNode running = SessionDir.findRunning(Paths.tempDir(tempDir));
        Optional<ProcessHandle> daemon = running == null ? Optional.empty() : ProcessHandle.of(running.path("pid").asLong());
        if (daemon.isEmpty() || !isBeam(daemon.get())) {
            System.out.println("Did not find any active beam processes.");
            return 0;
        }
        ProcessHandle handle = daemon.get();
        List<ProcessHandle> family = handle.descendants().toList();
        if (force) handle.destroyForcibly();
        else handle.destroy();
        try {
            handle.onExit().get(force ? 5 : GRACE_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            System.err.println("beam: the daemon did not stop within " + GRACE_SECONDS + " s; killing it.");
            handle.destroyForcibly();
            handle.onExit().get(5, TimeUnit.SECONDS);
        }
        int killed = 0;
        for (ProcessHandle p : family) {
            if (p.isAlive()) {
                p.destroyForcibly();
                killed++;
            }
        }
        for (ProcessHandle p : family) p.onExit().get(5, TimeUnit.SECONDS);
        System.out.println("Stopped all " + (1 + family.size()) + " beam processes"
                + (killed > 0 ? " (" + killed + " needed SIGKILL)." : "."));
        return 0;
    }

    private static boolean isBeam(ProcessHandle h) {
        return h.info().arguments().map(args -> List.of(args).contains(Main.class.getName())).orElse(true);
    }
}
