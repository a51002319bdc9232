package beam.dispatch;

import beam.codec.Frame;

/**
 * Where a session's outgoing frames go: a local socket, or (for a client of another node)
 * the link to that node, tagged with the client's id.
 */
public interface FrameSink {
    /** Queues a frame; never blocks. */
    void send(Frame frame);

    /** Ends the client's connection once what is queued has been sent. */
    void close();
}
