package beam.cli;

import beam.auth.TlsConfig;
import beam.auth.TokenAuth;
import beam.auth.TokenSource;
import beam.codec.FrameCodec;
import beam.codec.FrameLimits;
import beam.config.Environment;
import beam.daemon.Daemon;
import beam.daemon.DaemonConfig;
import beam.daemon.MemberDaemon;
import beam.daemon.RunningDaemon;
import beam.daemon.SessionDir;
import beam.http.HttpConfig;
import beam.link.Heartbeat;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.BindException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code ray start}: starts this node's daemon. With {@code --block} this JVM is the daemon.
 * Without it, this JVM launches the daemon as a detached child and relays its report
 * ({@link DetachedStart}); the Python {@code ray} launcher and the bash script do the same
 * relaying themselves, without this JVM.
 *
 * <p>Its options are declared with picocli's programmatic model ({@link #commandLine(Environment)}), not
 * annotations like the other commands: reading annotations makes the JDK generate a proxy
 * class per annotation type at run time, which the AOT cache cannot hold, and that took
 * picocli about 40 ms of every daemon start (docs/PERFORMANCE.md, "picocli without
 * annotations on the start path"). {@link Main#main} parses {@code ray start ...} with this
 * command alone.
 */
public final class StartCommand implements Callable<Integer> {
    static final String DESCRIPTION = "Start the beam daemon on this machine.";
    boolean head;
    String address;
    int port;
    Integer numGpus;
    Integer numCpus;
    String resources;
    String nodeIp;
    String tempDir;
    boolean block;
    String authTokenPath;
    long heartbeatMillis;
    long nodeTimeoutMillis;
    int maxHeaderBytes;
    long maxPayloadBytes;
    int maxConnections;
    int maxActorProcesses;
    Integer longCallSeconds;
    String tlsCert;
    String tlsKey;
    String labels, labelsFile;
    String tlsCa;
    long ownerPid;
    boolean notifyReady;
    String dashboardHost;
    int dashboardPort;
    int agentPort;
    int metricsPort;
    boolean includeDashboard;
    List<String> ignored = new ArrayList<>();

    private final Environment env;
    /** Where this node's cluster token came from (auth.TokenSource), null if it has none. */
    private String tokenSource;
    private CommandSpec spec;

    private StartCommand(Environment env) {
        this.env = env;
    }

    /** The {@code start} command: its options (help text, defaults, types), bound to a new StartCommand. */
    static CommandLine commandLine(Environment env) {
        StartCommand command = new StartCommand(env);
        CommandSpec spec = CommandSpec.wrapWithoutInspection(command).name("start");
        spec.usageMessage().description(DESCRIPTION);
        spec.addOption(flag("--head", "Start the head node of a new cluster.", false));
        spec.addOption(value("--address", "<address>", String.class, null, "Join the cluster whose head is at HOST:PORT.", false));
        spec.addOption(value("--port", "<port>", int.class, String.valueOf(DaemonConfig.DEFAULT_PORT), "TCP port of the head (default ${DEFAULT-VALUE}).", false));
        spec.addOption(value("--num-gpus", "<numGpus>", Integer.class, null, "GPUs this node offers (default: detected).", false));
        spec.addOption(value("--num-cpus", "<numCpus>", Integer.class, null, "CPUs this node offers (default: the core count).", false));
        spec.addOption(value("--resources", "<resources>", String.class, null, "Custom resources as JSON, e.g. '{\"TPU\": 4}'.", false));
        spec.addOption(value("--labels", "<labels>", String.class, null,
                "This node's labels, e.g. \"zone=us-west1-a,gpu=a100\" (Kubernetes label syntax; over --labels-file).", false));
        spec.addOption(value("--labels-file", "<labelsFile>", String.class, null, "A YAML file of this node's labels.", false));
        spec.addOption(value("--node-ip-address", "<nodeIp>", String.class, null,
                "The IP other hosts reach this node on (default: detected).", false));
        spec.addOption(value("--temp-dir", "<tempDir>", String.class, null,
                "Root of the session directories (default: $RAY_TMPDIR, else $TMPDIR/ray or /tmp/ray).", false));
        spec.addOption(flag("--block", "Stay in the foreground until stopped.", false));
        spec.addOption(value("--auth-token-path", "<authTokenPath>", String.class, null,
                "File with the cluster token (else $RAY_AUTH_TOKEN or $RAY_AUTH_TOKEN_PATH; a head without one makes its own).",
                false));
        spec.addOption(value("--heartbeat-period-ms", "<heartbeatMillis>", long.class,
                String.valueOf(Heartbeat.DEFAULT.periodMillis()),
                "Heartbeat period of node links (default ${DEFAULT-VALUE}).", false));
        spec.addOption(value("--node-timeout-ms", "<nodeTimeoutMillis>", long.class,
                String.valueOf(Heartbeat.DEFAULT.timeoutMillis()),
                "Silence after which a node (or the head) is declared lost (default ${DEFAULT-VALUE}).", false));
        spec.addOption(value("--max-header-bytes", "<maxHeaderBytes>", int.class,
                String.valueOf(FrameLimits.DEFAULT.maxHeaderBytes()),
                "Largest frame header accepted (default ${DEFAULT-VALUE}).", false));
        spec.addOption(value("--max-payload-bytes", "<maxPayloadBytes>", long.class,
                String.valueOf(FrameLimits.DEFAULT.maxPayloadBytes()),
                "Largest frame payload accepted (default ${DEFAULT-VALUE}).", false));
        spec.addOption(value("--max-connections", "<maxConnections>", int.class,
                String.valueOf(DaemonConfig.DEFAULT_MAX_CONNECTIONS),
                "Connections served at once per listener (default ${DEFAULT-VALUE}); more wait in the kernel's backlog.",
                false));
        spec.addOption(value("--max-actor-processes", "<maxActorProcesses>", int.class,
                String.valueOf(DaemonConfig.DEFAULT_MAX_ACTOR_PROCESSES),
                "Actor processes this node runs at once (default: from the host's memory and pid limit).", false));
        spec.addOption(value("--long-call-seconds", "<seconds>", Integer.class, null,
                "Name calls running longer than this in ray status, the dashboard and ray doctor (default: $"
                        + Environment.LONG_CALL_S + ", else " + DaemonConfig.DEFAULT_LONG_CALL_SECONDS + ").", false));
        spec.addOption(value("--tls-cert", "<tlsCert>", String.class, null,
                "PEM certificate of this node for TLS on node links (or $RAY_TLS_SERVER_CERT).", false));
        spec.addOption(value("--tls-key", "<tlsKey>", String.class, null,
                "PEM PKCS#8 private key for --tls-cert (or $RAY_TLS_SERVER_KEY).", false));
        spec.addOption(value("--tls-ca", "<tlsCa>", String.class, null,
                "PEM CA certificate every node's certificate is signed by (or $RAY_TLS_CA_CERT).", false));
        spec.addOption(value("--dashboard-host", "<dashboardHost>", String.class, HttpConfig.DEFAULT_HOST,
                "Address the HTTP ports bind (default ${DEFAULT-VALUE}); beyond loopback all but the health probes "
                        + "need the cluster token.", false));
        spec.addOption(value("--dashboard-port", "<dashboardPort>", int.class,
                String.valueOf(HttpConfig.DEFAULT_DASHBOARD_PORT),
                "The head's dashboard, state API and /api/gcs_healthz (default ${DEFAULT-VALUE}; 0: any free port).", false));
        spec.addOption(OptionSpec.builder("--include-dashboard").paramLabel("<true|false>").arity("0..1").type(Boolean.class)
                .fallbackValue("true").description("Serve the dashboard port on the head (default true).").build());
        spec.addOption(value("--dashboard-agent-listen-port", "<agentPort>", int.class,
                String.valueOf(HttpConfig.DEFAULT_AGENT_PORT),
                "Every node's /api/local_raylet_healthz (default ${DEFAULT-VALUE}; 0: any free port).", false));
        spec.addOption(value("--metrics-export-port", "<metricsPort>", int.class,
                String.valueOf(HttpConfig.DEFAULT_METRICS_PORT),
                "Every node's Prometheus /metrics (default: any free port, in node.json).", false));
        spec.addOption(value("--owner-pid", "<ownerPid>", long.class, String.valueOf(DaemonConfig.NO_OWNER), "Stop when this process exits.", true));
        spec.addOption(flag("--notify-ready", "", true));
        spec.addOption(IgnoredRayFlags.option());
        command.spec = spec;
        CommandLine cli = new CommandLine(spec);
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        return cli;
    }

    private static OptionSpec flag(String name, String description, boolean hidden) {
        return OptionSpec.builder(name).arity("0").type(boolean.class).description(description).hidden(hidden).build();
    }

    private static OptionSpec value(String name, String label, Class<?> type, String defaultValue, String description,
                                    boolean hidden) {
        return OptionSpec.builder(name).paramLabel(label).type(type).defaultValue(defaultValue).description(description)
                .hidden(hidden).build();
    }

    /** Copies the parsed values into the fields (the options hold them; see {@link #commandLine(Environment)}). */
    void load() {
        head = Boolean.TRUE.equals(option("--head"));
        address = option("--address");
        port = option("--port");
        numGpus = option("--num-gpus");
        numCpus = option("--num-cpus");
        resources = option("--resources");
        labels = option("--labels");
        labelsFile = option("--labels-file");
        nodeIp = option("--node-ip-address");
        tempDir = option("--temp-dir");
        block = Boolean.TRUE.equals(option("--block"));
        authTokenPath = option("--auth-token-path");
        heartbeatMillis = option("--heartbeat-period-ms");
        nodeTimeoutMillis = option("--node-timeout-ms");
        maxHeaderBytes = option("--max-header-bytes");
        maxPayloadBytes = option("--max-payload-bytes");
        maxConnections = option("--max-connections");
        maxActorProcesses = option("--max-actor-processes");
        longCallSeconds = option("--long-call-seconds");
        tlsCert = option("--tls-cert");
        tlsKey = option("--tls-key");
        tlsCa = option("--tls-ca");
        ownerPid = option("--owner-pid");
        notifyReady = Boolean.TRUE.equals(option("--notify-ready"));
        dashboardHost = option("--dashboard-host");
        dashboardPort = option("--dashboard-port");
        agentPort = option("--dashboard-agent-listen-port");
        metricsPort = option("--metrics-export-port");
        includeDashboard = !Boolean.FALSE.equals(option("--include-dashboard"));
        List<String> given = option(IgnoredRayFlags.NAMES[0]);
        ignored = given == null ? new ArrayList<>() : given;
    }

    @SuppressWarnings("unchecked")
    private <T> T option(String name) {
        return (T) spec.findOption(name).getValue();
    }

    @Override
    public Integer call() throws Exception {
        load();
        if (!block) {  // the daemon checks the arguments and says what is wrong
            List<String> all = spec.commandLine().getParseResult().originalArgs();
            // parsed alone (Main.main) the arguments are start's; in the `ray` tree "start" comes first
            List<String> args = all.subList(spec.parent() == null ? 0 : all.indexOf("start") + 1, all.size());
            return DetachedStart.launch(Paths.tempDir(tempDir, env), args);
        }
        IgnoredRayFlags.report(spec);
        if (head == (address != null)) {
            System.err.println("beam: say either `ray start --head` to start a cluster or `ray start --address HEAD:PORT` "
                    + "to join one.");
            return 1;
        }
        Path temp = Paths.tempDir(tempDir, env);
        try {
            TrustedPaths.prepareForStart(temp);
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("beam: " + e.getMessage());
            return 2;
        }
        Discovery.Found found = Discovery.runningIn(temp, false);
        if (found != null) {
            ObjectNode running = found.node();
            System.err.println("beam: a beam daemon is already running on this machine (pid " + running.path("pid").asLong()
                    + ", address " + running.path("address").asText() + ", session " + running.path("session_dir").asText()
                    + "). Run `ray stop` first, or use another --temp-dir.");
            return 1;
        }
        SessionDir.removeStale(temp);
        DaemonConfig config;
        try {
            TokenSource.Found given = TokenSource.disabled(env) ? null : TokenSource.find(env, authTokenPath);
            tokenSource = given == null ? null : given.source();
            // a head makes its own token unless it is given one (Kubernetes: the same Secret
            // on the head and every worker pod, docs/DEPLOY.md)
            String token = given != null ? given.token() : head && !TokenSource.disabled(env) ? TokenAuth.newToken() : null;
            if (TokenSource.disabled(env)) {
                System.err.println("beam: WARNING: token authentication is disabled (" + Environment.AUTH_MODE + "=disabled)");
            }
            config = new DaemonConfig(port, numGpus, numCpus, resources, nodeIp, temp, ownerPid,
                    new FrameLimits(maxHeaderBytes, maxPayloadBytes), maxConnections, address, token,
                    new Heartbeat(heartbeatMillis, nodeTimeoutMillis), TlsConfig.resolve(tlsCert, tlsKey, tlsCa, env),
                    new HttpConfig(dashboardHost, dashboardPort, agentPort, metricsPort, includeDashboard),
                    maxActorProcesses, env, longCallSeconds != null ? longCallSeconds : java.util.Objects.requireNonNullElse(
                    env.longCallSeconds(), DaemonConfig.DEFAULT_LONG_CALL_SECONDS), LabelFlags.read(labels, labelsFile, env));
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("beam: " + e.getMessage());
            return 2;
        }
        return runInForeground(config);
    }

    private int runInForeground(DaemonConfig config) throws Exception {
        SessionDir session;
        RunningDaemon daemon;
        try {
            session = SessionDir.create(config.tempDir());
            DaemonLogging.configure(session.logsDir().resolve("beamd.log"), !notifyReady);
            daemon = config.isHead() ? new Daemon(config, session).start() : new MemberDaemon(config, session).start();
        } catch (IOException | IllegalArgumentException e) {
            String why = e instanceof BindException
                    ? "port " + config.port() + " is already in use (" + e.getMessage() + "); pick another with --port"
                    : e.getMessage();
            // a join refused for its token names where this node's token came from
            String source = !config.isHead() && why != null && why.contains("token") && tokenSource != null
                    ? " (this node's token came from " + tokenSource + ")" : "";
            System.err.println("beam: could not start: " + why + source);
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            daemon.shutdown();
            DaemonLogging.close();
        }, "shutdown-hook"));
        exitZeroOnTerm();
        StartBanner.nextSteps(daemon.nodeIp(), daemon.gcsAddress(), session.dir().toString(), !notifyReady, config.isHead(),
                TokenSource.disabled(env));
        StartBanner.http(config.http(), config.isHead());
        if (notifyReady) ReadyReport.ready(session.logsDir().resolve("beamd.out"));
        // what start-up left for later, made while the daemon waits for its first client
        Thread.ofPlatform().daemon().name("warm-up").start(FrameCodec::warmUp);
        daemon.awaitStopped();
        return daemon.exitCode();
    }

    /**
     * SIGTERM (`ray stop`, Kubernetes deleting the pod, Slurm ending the step) is the asked-for
     * way to stop: the shutdown hook stops the daemon and its actors, and the process exits 0,
     * not the JVM's 143, so that a supervisor does not count it as a failure. Every other end
     * (a lost head, a fatal error, another signal) keeps its non-zero status.
     */
    @SuppressWarnings("restriction")
    private static void exitZeroOnTerm() {
        sun.misc.Signal.handle(new sun.misc.Signal("TERM"), signal -> System.exit(0));
    }
}
