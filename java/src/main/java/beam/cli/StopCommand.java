package beam.cli;

import beam.daemon.SessionDir;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
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
        Path temp = Paths.tempDir(tempDir);
        boolean folderChosen = Paths.tempDirChosen(tempDir);
        Map<Long, ProcessHandle> daemons = new LinkedHashMap<>();
        inFolder(temp).ifPresent(h -> daemons.put(h.pid(), h));
        List<ProcessHandle> elsewhere = LocalDaemons.all().stream().filter(h -> !daemons.containsKey(h.pid())).toList();
        if (!folderChosen) elsewhere.forEach(h -> daemons.put(h.pid(), h));
        if (daemons.isEmpty()) {
            String hint = LocalDaemons.elsewhereHint(temp, "stop");
            if (!hint.isEmpty()) System.err.println(hint);
            System.out.println("Did not find any active beam processes.");
            return 0;
        }
        int total = 0;
        int killed = 0;
        for (ProcessHandle daemon : daemons.values()) {
            int[] counts = stop(daemon);
            total += counts[0];
            killed += counts[1];
        }
        System.out.println("Stopped all " + total + " beam processes"
                + (killed > 0 ? " (" + killed + " needed SIGKILL)." : "."));
        return 0;
    }

    /** Stops one daemon and whatever it started; returns {processes, of them SIGKILLed after the grace period}. */
    private int[] stop(ProcessHandle daemon) throws InterruptedException, ExecutionException, TimeoutException {
        List<ProcessHandle> family = daemon.descendants().toList();
        if (force) daemon.destroyForcibly();
        else daemon.destroy();
        try {
            daemon.onExit().get(force ? 5 : GRACE_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            System.err.println("beam: the daemon (pid " + daemon.pid() + ") did not stop within " + GRACE_SECONDS
                    + " s; killing it.");
            daemon.destroyForcibly();
            daemon.onExit().get(5, TimeUnit.SECONDS);
        }
        int killed = 0;
        for (ProcessHandle p : family) {
            if (p.isAlive()) {
                p.destroyForcibly();
                killed++;
            }
        }
        for (ProcessHandle p : family) p.onExit().get(5, TimeUnit.SECONDS);
        return new int[] {1 + family.size(), killed};
    }

    /** The daemon whose node.json is under {@code temp}, if it runs. */
    private static Optional<ProcessHandle> inFolder(Path temp) {
        ObjectNode running = SessionDir.findRunning(temp);
        if (running == null) return Optional.empty();
        return ProcessHandle.of(running.path("pid").asLong()).filter(LocalDaemons::isDaemon);
    }
}
