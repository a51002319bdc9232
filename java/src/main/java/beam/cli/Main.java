package beam.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code ray} command: {@code start}, {@code stop}, {@code status}, {@code list}, {@code doctor}. */
@Command(name = "ray", addMethodSubcommands = false, mixinStandardHelpOptions = true, version = "beam 0.1.0 (Ray API 2.58.0)",
        description = "beam: the slice of Ray that vLLM uses, small and fast.")
public final class Main implements Runnable {
    public static void main(String[] args) {
        System.setProperty("java.util.logging.manager", DaemonLogging.KeepHandlersAtExit.class.getName());
        boolean start = args.length > 0 && args[0].equals("start");
        // a daemon launched by `ray start` reports to its launcher (before picocli takes System.err)
        if (start && java.util.List.of(args).contains("--notify-ready")) ReadyReport.begin();
        // `ray start` (every daemon's start-up) is parsed by its command alone, which reads no annotations
        System.exit(start ? startCommandLine().execute(java.util.Arrays.copyOfRange(args, 1, args.length))
                : commandLine().execute(args));
    }

    /** The parser of {@code ray ARGS}, with every subcommand. */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Main());
        cli.addSubcommand("start", StartCommand.commandLine());
        cli.addSubcommand(new StopCommand());
        cli.addSubcommand(new StatusCommand());
        cli.addSubcommand(new ListCommand());
        cli.addSubcommand(new DoctorCommand());
        cli.addSubcommand(new HealthCheckCommand());
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        return cli;
    }

    /** The parser of {@code ray start ARGS} alone: the same command, named as in the tree. */
    static CommandLine startCommandLine() {
        CommandLine cli = StartCommand.commandLine();
        cli.setCommandName("ray start");
        return cli;
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
