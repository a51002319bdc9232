package beam.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The environment variables beam reads, read here only: {@link #current()} takes the
 * process environment once, and whoever needs a variable is handed this record (a test builds
 * one from a map with {@link #of}). Each variable is named once, below, with what an unset or
 * blank value means.
 *
 * @param vars the variables, as {@link System#getenv()} gives them
 */
public record Environment(Map<String, String> vars) {
    /** The cluster token itself (Ray's name); wins over any token file. */
    public static final String AUTH_TOKEN = "RAY_AUTH_TOKEN";
    /** A file holding the cluster token, when {@code --auth-token-path} is not given. */
    public static final String AUTH_TOKEN_PATH = "RAY_AUTH_TOKEN_PATH";
    /** {@code disabled} turns token authentication off, {@code token} requires it (Ray's name and values). */
    public static final String AUTH_MODE = "RAY_AUTH_MODE";
    /** The home folder, whose {@code .ray/auth_token} is Ray 2.59+'s token file (auth.TokenSource). */
    public static final String HOME = "HOME";
    /** TLS of node links when the {@code --tls-*} flags are absent (Ray's names). */
    public static final String TLS_CERT = "RAY_TLS_SERVER_CERT";
    public static final String TLS_KEY = "RAY_TLS_SERVER_KEY";
    public static final String TLS_CA = "RAY_TLS_CA_CERT";
    /** The cluster the CLI talks to when {@code --address} is not given. */
    public static final String ADDRESS = "RAY_ADDRESS";
    /** The temp dir itself, when {@code --temp-dir} is not given (cli.Paths has the rule). */
    public static final String RAY_TMPDIR = "RAY_TMPDIR";
    /** The parent of the shared temp dir, as for Ray on Linux. */
    public static final String TMPDIR = "TMPDIR";
    /** Seconds the CLI waits for its daemon's reply. */
    public static final String CLI_TIMEOUT = "BEAM_CLI_TIMEOUT_S";
    /** The interpreter the daemon asks for the Python side's versions (set by the launcher). */
    public static final String PYTHON = "BEAM_PYTHON";
    /** Where the accelerator probe reads device files: "/" unless a test points it at a fake tree. */
    public static final String DEVICE_ROOT = "BEAM_DEVICE_ROOT";

    /** Seconds after which a running actor call counts as long (ray start --long-call-seconds overrides it). */
    public static final String LONG_CALL_S = "BEAM_LONG_CALL_S";

    /** Where the host's shared memory is mounted ("/dev/shm" unless a test points it at a smaller filesystem). */
    public static final String SHM_PATH = "BEAM_SHM_PATH";
    /** This process's resource limits, in /proc's format ("/proc/self/limits" unless a test points it at a fake file). */
    public static final String LIMITS_PATH = "BEAM_LIMITS_PATH";

    public static final String DEFAULT_PYTHON = "python3";
    public static final String DEFAULT_SHM_PATH = "/dev/shm";
    public static final String DEFAULT_LIMITS_PATH = "/proc/self/limits";
    public static final String DEFAULT_DEVICE_ROOT = "/";
    public static final Duration DEFAULT_CLI_TIMEOUT = Duration.ofSeconds(60);

    /** Made when first asked for: a JVM that never reads the environment never copies it. */
    private static final class Holder {
        static final Environment ENV = new Environment(System.getenv());
    }

    public Environment {
        vars = Map.copyOf(vars);
    }

    /** This process's environment, read once. */
    public static Environment current() {
        return Holder.ENV;
    }

    public static Environment of(Map<String, String> vars) {
        return new Environment(vars);
    }

    /** The value of {@code name} as set (blank included), or null when unset. */
    public String get(String name) {
        return vars.get(name);
    }

    /** The value of {@code name}, or null when it is unset or blank. */
    public String given(String name) {
        String v = vars.get(name);
        return v == null || v.isBlank() ? null : v;
    }

    /** {@link #LONG_CALL_S} as a number of seconds, or null when unset; a value that is not a whole number is refused. */
    public Integer longCallSeconds() {
        String value = given(LONG_CALL_S);
        if (value == null) return null;
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(LONG_CALL_S + " must be a whole number of seconds >= 1, got '" + value + "'");
        }
    }

    public String python() {
        return vars.getOrDefault(PYTHON, DEFAULT_PYTHON);
    }

    public Path deviceRoot() {
        return Path.of(vars.getOrDefault(DEVICE_ROOT, DEFAULT_DEVICE_ROOT));
    }

    public Path shmPath() {
        return Path.of(vars.getOrDefault(SHM_PATH, DEFAULT_SHM_PATH));
    }

    public Path limitsPath() {
        return Path.of(vars.getOrDefault(LIMITS_PATH, DEFAULT_LIMITS_PATH));
    }

    /** {@link #DEFAULT_CLI_TIMEOUT} unless {@link #CLI_TIMEOUT} names another positive whole number of seconds (tests use 2). */
    public Duration cliTimeout() {
        try {
            String v = get(CLI_TIMEOUT);
            long s = v == null ? 0 : Long.parseLong(v.trim());
            return s > 0 ? Duration.ofSeconds(s) : DEFAULT_CLI_TIMEOUT;
        } catch (NumberFormatException e) {
            return DEFAULT_CLI_TIMEOUT;
        }
    }
}
