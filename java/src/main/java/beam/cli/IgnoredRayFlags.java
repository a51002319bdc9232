package beam.cli;

import java.util.List;
import java.util.Set;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** {@code ray start}'s flags of Ray that do not apply to beam: accepted (with or without a value), reported and ignored. */
final class IgnoredRayFlags {
    private IgnoredRayFlags() {
    }

    static final String[] NAMES = {"--disable-usage-stats", "--object-store-memory", "--memory",
        "--dashboard-agent-grpc-port", "--min-worker-port", "--max-worker-port",
        "--node-manager-port", "--object-manager-port", "--runtime-env-agent-port", "--ray-client-server-port",
        "--redis-password", "--system-config", "--plasma-directory", "--object-spilling-directory", "--storage",
        "--log-style", "--log-color", "--verbose", "--node-name", "--worker-port-list",
        "--disable-log-dedup", "--enable-object-reconstruction", "--gcs-server-port", "--autoscaling-config",
        "--no-monitor", "--tracing-startup-hook", "--include-log-monitor"};

    /** One hidden option with every name, taking an optional value. */
    static OptionSpec option() {
        return OptionSpec.builder(NAMES).paramLabel("<ignored>").arity("0..1").type(List.class)
                .auxiliaryTypes(String.class).hidden(true).description("Ray flags that do not apply to beam: accepted and ignored.")
                .build();
    }

    /** Says, on stderr, which of them the command line gave. */
    static void report(CommandSpec spec) {
        Set<String> ignored = Set.of(NAMES);
        for (String arg : spec.commandLine().getParseResult().originalArgs()) {
            String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
            if (ignored.contains(name)) System.err.println("beam: ignoring " + name + " (does not apply to beam)");
        }
    }
}
