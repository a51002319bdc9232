package beam.cli;

import beam.auth.TokenSource;
import beam.config.Environment;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ray get-auth-token [--generate]}, as Ray 2.59+ prints it: the token (found in Ray's
 * order, auth.TokenSource) on stdout without a newline, for piping, and the newline on stderr;
 * none found is an error naming the fix, or with {@code --generate} a new token written to
 * {@code ~/.ray/auth_token} (0600, its folder 0700), which users copy to every node.
 */
@Command(name = "get-auth-token", description = "Print the cluster token (RAY_AUTH_TOKEN, RAY_AUTH_TOKEN_PATH or ~/.ray/auth_token).")
public final class GetAuthTokenCommand implements Callable<Integer> {
    static final String NONE = "No authentication token found. Use ray `get-auth-token --generate` to create one.";
    private final Environment env;

    @Option(names = "--generate", description = "Generate a new token in ~/.ray/auth_token if none exists.")
    boolean generate;

    GetAuthTokenCommand(Environment env) {
        this.env = env;
    }

    @Override
    public Integer call() {
        String token;
        try {
            TokenSource.Found found = TokenSource.find(env, null);
            if (found != null) {
                token = found.token();
            } else if (generate) {
                Path file = TokenSource.defaultFile(env);
                if (file == null) throw new IOException("HOME is not set, so there is no ~/.ray/auth_token to write");
                System.err.println("Generating new authentication token...");
                token = TokenSource.generate(file);
            } else {
                System.err.println("Error: " + NONE);
                return 1;
            }
        } catch (IOException e) {
            System.err.println("Error: " + e.getMessage());
            return 1;
        }
        System.out.print(token);
        System.out.flush();
        System.err.println();
        return 0;
    }
}
