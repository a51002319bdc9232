package beam.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The {@code ray} command line as picocli parses it: flags, defaults, Ray's ignored flags and
 * the errors for bad ones. picocli is compiled from its sources jar by the build (java/pom.xml),
 * so these also check that the compiled picocli behaves as the released jar did, and that it is
 * modern bytecode (the JDK 25 AOT cache cannot hold the released jar's Java 5 classes).
 */
class CliParseTest {
    private static StartCommand parseStart(String... args) {
        CommandLine.ParseResult result = Main.commandLine().parseArgs(args);
        assertThat(result.subcommand().commandSpec().name()).isEqualTo("start");
        StartCommand start = (StartCommand) result.subcommand().commandSpec().userObject();
        start.load();
        // `ray start` alone (Main.main's path) reads the same values
        StartCommand alone = (StartCommand) Main.startCommandLine()
                .parseArgs(java.util.Arrays.copyOfRange(args, 1, args.length)).commandSpec().userObject();
        alone.load();
        assertThat(alone).usingRecursiveComparison().ignoringFields("spec").isEqualTo(start);
        return start;
    }

    /** Runs {@code ray ARGS} up to (not into) a command's work: only parse errors, help, version. */
    private record Run(int code, String out, String err) {}

    private static Run run(String... args) {
        CommandLine cli = Main.commandLine();
        StringWriter out = new StringWriter(), err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void startFlagsAreParsedWithTheirTypes() {
        StartCommand start = parseStart("start", "--head", "--port", "0", "--num-gpus", "2", "--num-cpus", "3",
                "--resources", "{\"TPU\": 4}", "--temp-dir", "/x/y", "--block", "--notify-ready",
                "--node-ip-address", "10.0.0.1", "--max-payload-bytes", "4294967296", "--owner-pid", "42");
        assertThat(start.head).isTrue();
        assertThat(start.address).isNull();
        assertThat(start.port).isZero();
        assertThat(start.numGpus).isEqualTo(2);
        assertThat(start.numCpus).isEqualTo(3);
        assertThat(start.resources).isEqualTo("{\"TPU\": 4}");
        assertThat(start.tempDir).isEqualTo("/x/y");
        assertThat(start.block).isTrue();
        assertThat(start.notifyReady).isTrue();
        assertThat(start.nodeIp).isEqualTo("10.0.0.1");
        assertThat(start.maxPayloadBytes).isEqualTo(4294967296L);
        assertThat(start.ownerPid).isEqualTo(42L);
    }

    @Test
    void startDefaults() {
        StartCommand start = parseStart("start", "--address", "head:6379");
        assertThat(start.head).isFalse();
        assertThat(start.address).isEqualTo("head:6379");
        assertThat(start.port).isEqualTo(6379);
        assertThat(start.numGpus).isNull();
        assertThat(start.numCpus).isNull();
        assertThat(start.heartbeatMillis).isEqualTo(500);
        assertThat(start.nodeTimeoutMillis).isEqualTo(2500);
        assertThat(start.maxHeaderBytes).isEqualTo(1048576);
        assertThat(start.maxPayloadBytes).isEqualTo(1073741824L);
        assertThat(start.maxConnections).isEqualTo(4096);
        assertThat(start.block).isFalse();
    }

    @Test
    void rayFlagsThatDoNotApplyAreAcceptedWithOrWithoutAValue() {
        StartCommand start = parseStart("start", "--memory", "100", "--node-manager-port=7001",
                "--disable-usage-stats", "--head", "--object-store-memory", "1000", "--port=7000");
        assertThat(start.head).isTrue();
        assertThat(start.port).isEqualTo(7000);
        assertThat(start.ignored).containsExactly("100", "7001", "1000");
    }

    @Test
    void anUnknownFlagIsAUsageErrorNamingIt() {
        Run run = run("start", "--head", "--bogus-flag-xyz");
        assertThat(run.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("Unknown option: '--bogus-flag-xyz'");
    }

    @Test
    void aBadValueIsAUsageErrorNamingTheFlag() {
        Run run = run("start", "--head", "--port", "abc");
        assertThat(run.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("--port").contains("'abc' is not an int");
        Run missing = run("start", "--head", "--num-gpus");
        assertThat(missing.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(missing.err()).contains("Missing required parameter for option '--num-gpus'");
    }

    @Test
    void anUnknownSubcommandIsAnError() {
        Run run = run("launch");
        assertThat(run.code()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(run.err()).contains("Unmatched argument at index 0: 'launch'");
    }

    @Test
    void versionAndHelp() {
        Run version = run("--version");
        assertThat(version.code()).isZero();
        assertThat(version.out().trim()).isEqualTo("beam " + beam.util.Versions.BEAM + " (Ray API " + beam.util.Versions.RAY + ")").matches("beam \\d+\\.\\d+\\.\\d+ \\(Ray API \\d+\\.\\d+\\.\\d+\\)");
        Run help = run("--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("Usage: ray").contains("start").contains("stop").contains("status")
                .contains("list").contains("doctor");
        String startUsage = Main.commandLine().getSubcommands().get("start").getUsageMessage(CommandLine.Help.Ansi.OFF);
        assertThat(startUsage).contains("--head").contains("--num-gpus").contains("(default 6379)")
                .doesNotContain("--notify-ready").doesNotContain("--object-store-memory").contains("--dashboard-host");
    }

    @Test
    void startAloneGivesTheSameUsageAndErrorsAsStartInTheTree() {
        CommandLine alone = Main.startCommandLine();
        String inTree = Main.commandLine().getSubcommands().get("start").getUsageMessage(CommandLine.Help.Ansi.OFF);
        assertThat(alone.getUsageMessage(CommandLine.Help.Ansi.OFF)).isEqualTo(inTree).startsWith("Usage: ray start ");
        StringWriter err = new StringWriter();
        alone.setErr(new PrintWriter(err));
        assertThat(alone.execute("--head", "--port", "abc")).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("'abc' is not an int").contains("Usage: ray start ");
    }

    @Test
    void theStartPathReadsNoAnnotations() {
        // annotations make the JDK generate proxy classes at run time, ~40 ms of every start (StartCommand's doc)
        assertThat(StartCommand.class.getAnnotations()).isEmpty();
        for (var field : StartCommand.class.getDeclaredFields()) {
            assertThat(field.getAnnotations()).as(field.getName()).isEmpty();
        }
    }

    @Test
    void picocliIsCompiledWithBeamAsModernBytecode() throws IOException {
        for (Class<?> c : List.of(CommandLine.class, CommandLine.Model.CommandSpec.class, CommandLine.Help.class)) {
            assertThat(classFileMajor(c)).as("class file version of %s", c.getName()).isGreaterThanOrEqualTo(65);
            assertThat(c.getProtectionDomain().getCodeSource().getLocation())
                    .as("%s comes from beam's own classes, not a picocli jar", c.getName())
                    .isEqualTo(Main.class.getProtectionDomain().getCodeSource().getLocation());
        }
    }

    private static int classFileMajor(Class<?> c) throws IOException {
        String resource = "/" + c.getName().replace('.', '/') + ".class";
        try (InputStream in = c.getResourceAsStream(resource); DataInputStream data = new DataInputStream(in)) {
            assertThat(data.readInt()).isEqualTo(0xCAFEBABE);
            data.readUnsignedShort();  // minor
            return data.readUnsignedShort();
        }
    }

    @Test
    void logsTakesRaysFormsAndDefaults() {
        CommandLine.ParseResult logs = Main.commandLine().parseArgs("logs", "raylet.out", "-ip", "10.0.0.2");
        var alias = (LogsCommand.ClusterLogs) logs.subcommand().commandSpec().userObject();
        assertThat(alias.glob).isEqualTo("raylet.out"); // `ray logs GLOB` is `ray logs cluster GLOB`
        assertThat(alias.common.nodeIp).isEqualTo("10.0.0.2");
        assertThat(alias.common.tail).isEqualTo(1_000); // Ray's DEFAULT_LOG_LIMIT
        var cluster = (LogsCommand.ClusterLogs) Main.commandLine().parseArgs("logs", "cluster")
                .subcommand().subcommand().commandSpec().userObject();
        assertThat(cluster.glob).isEqualTo("*");
        var actor = (LogsCommand.ActorLogs) Main.commandLine().parseArgs("logs", "actor", "-a", "ab", "--err", "-f",
                "--tail", "-1").subcommand().subcommand().commandSpec().userObject();
        assertThat(actor.actorId).isEqualTo("ab");
        assertThat(actor.err).isTrue();
        assertThat(actor.common.follow).isTrue();
        assertThat(actor.common.tail).isEqualTo(-1);
        var worker = (LogsCommand.WorkerLogs) Main.commandLine().parseArgs("logs", "worker", "-pid", "42", "-id", "cd")
                .subcommand().subcommand().commandSpec().userObject();
        assertThat(worker.pid).isEqualTo(42);
        assertThat(worker.common.nodeId).isEqualTo("cd");
        Run missing = run("logs", "worker");
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err()).contains("Missing required option: '--pid=<pid>'");
    }
}
