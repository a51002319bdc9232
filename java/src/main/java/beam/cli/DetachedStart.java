package beam.cli;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
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
 * status when it fails before it is ready.
 */
final class DetachedStart {
    private DetachedStart() {
    }

    /** Launches the daemon for {@code ray start ARGS} and relays its report; the exit status of {@code ray start}. */
    static int launch(String tempDirFlag, List<String> args) throws IOException, InterruptedException {
        Path temp = Paths.tempDir(tempDirFlag);
        List<String> cmd = new ArrayList<>();
        if (new File("/usr/bin/setsid").canExecute()) cmd.add("/usr/bin/setsid");
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(daemonJvmFlags(ManagementFactory.getRuntimeMXBean().getInputArguments()));
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
        Path stderrLog = temp.resolve("beamd-stderr.log");
        Process child = new ProcessBuilder(cmd)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectError(ProcessBuilder.Redirect.appendTo(stderrLog.toFile()))
                .start();
        boolean explained = false;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (line.equals(ReadyReport.READY)) return 0;
                if (line.startsWith(ReadyReport.OUT)) {
                    System.out.println(line.substring(ReadyReport.OUT.length()));
                } else if (line.startsWith(ReadyReport.ERR)) {
                    System.err.println(line.substring(ReadyReport.ERR.length()));
                    explained = true;
                }
            }
        }
        int code = child.waitFor();
        if (code != 0 && !explained) {
            System.err.println("beam: the daemon exited (code " + code + ") before it was ready; see " + stderrLog);
        }
        return code;
    }

    /**
     * The daemon runs with the CLI's own JVM flags (python/ray/_beam/launch/jvmflags.py JVM_FLAGS,
     * chosen for the daemon's idle memory and start-up; docs/PERFORMANCE.md).
     */
    static List<String> daemonJvmFlags(List<String> cliFlags) {
        return List.copyOf(cliFlags);
    }
}
