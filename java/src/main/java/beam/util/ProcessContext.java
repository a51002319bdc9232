package beam.util;

import java.util.List;

/**
 * How a client's Python runs, so the actors it creates run the same way: its interpreter
 * ({@code sys.executable}), working directory and {@code sys.path}. Any may be null. One
 * record on both sides of the node link: the domain keeps it per client ({@code cluster/Client})
 * and in each actor's {@code SpawnSpec}, and {@code protocol/LinkMessage.StartActor} carries the
 * same record to a joined node (the {@code context} of {@code start_actor}), so nothing converts it.
 * It lives in util/ because the protocol may not import the domain, nor the domain the protocol.
 */
public record ProcessContext(String python, String cwd, List<String> sysPath) {
}
