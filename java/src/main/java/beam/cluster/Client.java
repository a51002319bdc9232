package beam.cluster;

import beam.codec.Frame;

/** A connected driver or actor worker, as the cluster state sees it: somewhere to push frames. */
public interface Client {
    /** Sends a frame to this client (a non-blocking write, or queued); never blocks, dropped if the client is gone. */
    void push(Frame frame);

    /** The job this client belongs to (hex), or "" before hello. */
    String jobId();

    /** Whether actor stdout/stderr should be forwarded to this client. */
    boolean logToDriver();

    /** For logs: "driver pid 123" or "worker of actor ab12". */
    String describe();

    /** The namespace named actors are created in and looked up from (Ray's, per driver). */
    String namespace();

    /** The client's interpreter, cwd and sys.path: actors it creates run with the same. */
    ProcessContext processContext();
}
