package beam.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code ray} command: {@code start}, {@code stop}, {@code status}. */
@Command(name = "ray", addMethodSubcommands = false, mixinStandardHelpOptions = true, version = "beam 0.1.0 (Ray API 2.58.0)",
        description = "beam: the slice of Ray that vLLM uses, small and fast.",
        subcommands = {StartCommand.class, StopCommand.class, StatusCommand.class, ListCommand.class,
            DoctorCommand.class})
public final class Main implements Runnable {
    public static void main(String[] args) {
        System.setProperty("java.util.logging.manager", DaemonLogging.KeepHandlersAtExit.class.getName());
        // a daemon launched by `ray start` reports to its launcher (before picocli takes System.err)
        if (args.length > 0 && args[0].equals("start") && java.util.List.of(args).contains("--notify-ready")) {
            ReadyReport.begin();
        }
        System.exit(commandLine().execute(args));
    }

    /** The parser of {@code ray ARGS}, as {@link #main} uses it. */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Main());
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        return cli;
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
