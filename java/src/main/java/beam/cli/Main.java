package beam.cli;

import beam.util.Versions;
import beam.config.Environment;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code ray} command: {@code start}, {@code stop}, {@code status}, {@code list}, {@code get}, {@code summary},
 * {@code logs}, {@code doctor}, {@code stack}, {@code health-check}, {@code get-auth-token}. */
@Command(name = "ray", addMethodSubcommands = false, mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "beam: the slice of Ray that vLLM uses, small and fast.")
public final class Main implements Runnable {
    /** {@code ray --version}: both versions, as written once (Versions). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"beam " + Versions.BEAM + " (Ray API " + Versions.RAY + ")"};
        }
    }

    public static void main(String[] args) {
        System.setProperty("java.util.logging.manager", DaemonLogging.KeepHandlersAtExit.class.getName());
        boolean start = args.length > 0 && args[0].equals("start");
        // a daemon launched by `ray start` reports to its launcher (before picocli takes System.err)
        if (start && List.of(args).contains("--notify-ready")) ReadyReport.begin();
        // `ray start` (every daemon's start-up) is parsed by its command alone, which reads no annotations
        Environment env = Environment.current(); // the one read of the environment
        System.exit(start ? startCommandLine(env).execute(Arrays.copyOfRange(args, 1, args.length))
                : commandLine(env).execute(args));
    }

    /** The parser of {@code ray ARGS}, with every subcommand. */
    static CommandLine commandLine() {
        return commandLine(Environment.current());
    }

    /** The same, its commands reading {@code env}. */
    static CommandLine commandLine(Environment env) {
        CommandLine cli = new CommandLine(new Main());
        cli.addSubcommand("start", StartCommand.commandLine(env));
        cli.addSubcommand(new StopCommand(env));
        cli.addSubcommand(new StatusCommand(env));
        cli.addSubcommand(new ListCommand(env));
        cli.addSubcommand(new GetCommand(env));
        cli.addSubcommand(new SummaryCommand(env));
        cli.addSubcommand(new DoctorCommand(env));
        cli.addSubcommand("logs", LogsCommand.commandLine(env));
        cli.addSubcommand(new StackCommand(env));
        cli.addSubcommand(new HealthCheckCommand(env));
        cli.addSubcommand(new GetAuthTokenCommand(env));
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        return cli;
    }

    /** The parser of {@code ray start ARGS} alone: the same command, named as in the tree. */
    static CommandLine startCommandLine() {
        return startCommandLine(Environment.current());
    }

    static CommandLine startCommandLine(Environment env) {
        CommandLine cli = StartCommand.commandLine(env);
        cli.setCommandName("ray start");
        return cli;
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
