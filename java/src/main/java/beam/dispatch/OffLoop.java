package beam.dispatch;

import beam.codec.Frame;
import beam.protocol.Request;
import beam.protocol.RequestCodec;
import java.util.ArrayDeque;

/**
 * One client's frames, run in arrival order, moved off the thread that reads them while a
 * request that may wait is served. That thread reads other clients too (the daemon's reader
 * loop for local clients; a joined node's link for the clients it relays, the same thread
 * that brings that node's heartbeats and its answers to the head's questions), so nothing
 * on it may wait: a request that can (its type is a {@link Request.MayWait}) is handed to a
 * virtual thread, and so is every frame of this client that arrives while that thread has
 * work, so the order holds:
 * <pre>
 *   ON_LOOP  --a MayWait request------------------------------------> OFF_LOOP (a drainer starts)
 *   OFF_LOOP --any frame, or the end of the stream: queued behind it
 *   OFF_LOOP --the drainer finds the backlog empty-------------------> ON_LOOP
 * </pre>
 * What to do when the backlog grows ({@link Owner#backlogFull}) is the reader's: a local
 * client's reading pauses; a relayed client, whose link cannot pause for one client, is ended.
 */
public final class OffLoop {
    /** Queued for the end of the stream. */
    private static final Object END = new Object();

    /** What the drainer runs, and what the reader does about a long backlog. */
    public interface Owner {
        void frame(Frame frame);

        void end(Exception why);

        /** The backlog reached its bound (once until {@link #drained}); called under this object's lock: must not wait. */
        void backlogFull();

        /** The backlog is empty again after {@link #backlogFull}; called under this object's lock: must not wait. */
        void drained();
    }

    private final Owner owner;
    private final int maxBacklog;
    private final String threadName;
    private final ArrayDeque<Object> backlog = new ArrayDeque<>(); // frames and END; guarded by this
    private boolean active; // guarded by this
    private boolean full; // guarded by this
    private Exception endedBy; // set with END

    public OffLoop(Owner owner, int maxBacklog, String threadName) {
        this.owner = owner;
        this.maxBacklog = maxBacklog;
        this.threadName = threadName;
    }

    /** True when {@code frame} went to the drainer; false: run it on the reader's thread now. */
    public synchronized boolean offer(Frame frame) {
        if (!active && !RequestCodec.mayWait(frame.op())) return false;
        backlog.add(frame);
        if (!active) {
            active = true;
            Thread.ofVirtual().name(threadName).start(this::drain);
        } else if (backlog.size() >= maxBacklog && !full) {
            full = true;
            owner.backlogFull(); // under the lock, so that it cannot come after the drained() that would undo it
        }
        return true;
    }

    /** True when the end went behind the backlog; false: end it on the reader's thread now. */
    public synchronized boolean offerEnd(Exception why) {
        if (!active) return false;
        endedBy = why;
        backlog.add(END);
        return true;
    }

    private void drain() {
        while (true) {
            Object next;
            synchronized (this) {
                next = backlog.poll();
                if (next == null) {
                    active = false;
                    if (full) owner.drained();
                    full = false;
                    return;
                }
            }
            if (next == END) owner.end(endedBy);
            else owner.frame((Frame) next);
        }
    }
}
