package beam.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The kernel's count of OOM kills ({@code oom_kill} in /proc/vmstat, Linux 4.13+). If it
 * rose while an actor that died of SIGKILL was running, the OOM killer is the likely cause.
 */
final class OomCounter {
    private OomCounter() {
    }

    /** The current count, or -1 where the kernel does not report it. */
    static long read() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/vmstat"))) {
                if (line.startsWith("oom_kill ")) return Long.parseLong(line.substring(9).trim());
            }
        } catch (IOException | NumberFormatException ignored) {
            // not Linux, or no counter
        }
        return -1;
    }
}
