package beam.daemon;

/** A started daemon, head or joined node, as the CLI sees it. */
public interface RunningDaemon {
    String nodeIp();

    /** The head's HOST:PORT (what `ray start --address` takes). */
    String gcsAddress();

    /** The command another machine runs to join, for `ray start`'s output. */
    String joinHint();

    void shutdown();

    void awaitStopped() throws InterruptedException;

    /** The exit status of `ray start --block` once stopped: 0 when asked to stop, else why it stopped on its own. */
    default int exitCode() {
        return 0;
    }
}
