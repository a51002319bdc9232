package beam.cli;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ray start} without {@code --block}, run as Java (the jar run directly, or the `ray`
 * scripts where setsid is missing or the temp dir needs explaining): launches the daemon as a
 * detached child (the same jar and arguments plus {@code --block --notify-ready}) and relays
 * the child's report ({@link ReadyReport}): its notices, errors and banner, and its exit
 * status when it fails before it is ready. The `ray` script (python/bin/ray, run_java) and
 * the Python launcher (launcher.start_detached) do the same where no JVM of the CLI's should
 * start; tests/golden/ready_report_cases.json holds all three to one table.
 */
final class DetachedStart {
    /** Where the daemon's stderr goes, in the temp dir (the launchers' too). */
    static final String STDERR_LOG = "beamd-stderr.log";

    private DetachedStart() {
    }

    /**
     * Launches the daemon for {@code ray start ARGS}, its sessions in {@code temp}, and relays
     * its report; the exit status of {@code ray start}. The daemon runs with this JVM's own
     * flags (the launcher's JVM_FLAGS, chosen for the daemon's idle memory and start-up).
     */
    static int launch(Path temp, List<String> args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        if (new File("/usr/bin/setsid").canExecute()) cmd.add("/usr/bin/setsid");
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Main.class.getName());
        cmd.addAll(List.of("start", "--block", "--notify-ready"));
        cmd.addAll(args);
        try {
            TrustedPaths.prepareForStart(temp);  // before the log below is made in it
        } catch (IllegalArgumentException e) {
            System.err.println("beam: " + e.getMessage());
            return 2;
        }
        Path stderrLog = temp.resolve(STDERR_LOG);
        Process child = new ProcessBuilder(cmd)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(ProcessBuilder.Redirect.appendTo(stderrLog.toFile()))
                .start();
        return relay(child, stderrLog, System.out, System.err);
    }

    /**
     * Relays {@code child}'s report to {@code out} and {@code err} until it is ready (0) or
     * gone (its exit status); a failure it did not explain names {@code stderrLog}.
     */
    static int relay(Process child, Path stderrLog, PrintStream out, PrintStream err)
            throws IOException, InterruptedException {
        boolean explained = false;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.equals(ReadyReport.READY)) return 0;
                if (line.startsWith(ReadyReport.OUT)) {
                    out.println(line.substring(ReadyReport.OUT.length()));
                } else if (line.startsWith(ReadyReport.ERR)) {
                    err.println(line.substring(ReadyReport.ERR.length()));
                    explained = true;
                }
            }
        }
        int code = child.waitFor();
        if (code != 0 && !explained) {
            err.println("beam: the daemon exited (code " + code + ") before it was ready; see " + stderrLog);
        }
        return code;
    }
}
