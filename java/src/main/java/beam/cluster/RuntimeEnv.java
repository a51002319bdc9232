package beam.cluster;

/**
 * An actor's runtime_env, which the daemon does not interpret: it is handed to the worker
 * (in {@code actor_init}) for {@code get_runtime_context().runtime_env}. What the daemon acts
 * on is parsed apart, as typed options ({@link ActorOptions#envVars()}).
 *
 * @param json the runtime_env as the driver gave it: the text of a JSON object, already read
 *             once by the request's parser, so it is well-formed
 */
public record RuntimeEnv(String json) {
    /** No runtime_env: the empty object. */
    public static final RuntimeEnv NONE = new RuntimeEnv("{}");

    public RuntimeEnv {
        if (json == null || !json.startsWith("{")) throw new IllegalArgumentException("a runtime_env is a JSON object, got " + json);
    }
}
