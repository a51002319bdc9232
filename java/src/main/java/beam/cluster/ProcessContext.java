package beam.cluster;

import java.util.List;

/**
 * How a client's Python runs, so the actors it creates run the same way: its interpreter
 * ({@code sys.executable}), working directory and {@code sys.path}. Any may be null.
 */
public record ProcessContext(String python, String cwd, List<String> sysPath) {
}
