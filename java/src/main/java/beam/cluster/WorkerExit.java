package beam.cluster;

import java.util.List;

/** How an actor's worker process ended, as its node saw it: exit code (negative: the signal), stderr's last lines, OOM kills meanwhile. */
public record WorkerExit(int code, List<String> stderrTail, long oomKills) {
    public WorkerExit {
        stderrTail = List.copyOf(stderrTail);
    }
}
