package beam.connection;

import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameException;
import beam.codec.FrameLimits;
import beam.codec.FrameRefusal;
import beam.util.Scheduler;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One peer on a unix or TCP socket: {@link #read()} frames on the owner's thread and
 * {@link #send(Frame)} from any thread; the bytes move through a {@link Transport}. A send
 * never waits for the peer, so a slow or stuck peer stalls only this connection's own
 * writer thread, never a thread that serves someone else.
 *
 * <p><b>Writes.</b> At most one thread writes to the socket at a time; a send writes its
 * frame itself when the socket takes it without waiting, else queues it for this
 * connection's writer thread. {@link Outbox} owns that state machine.
 *
 * <p><b>Limits and closing.</b> Bytes queued and not yet written are capped at
 * {@link #MAX_QUEUED_BYTES}; {@link #closeAfterFlush()} lets the writer send what is queued,
 * then closes, and cuts a peer that does not read within {@link #FLUSH_GRACE_MILLIS}.
 * Exactly one thread calls {@code read()}; {@code send()} and {@code close()} are safe from
 * any thread. Timers (the flush grace, handshake deadlines) run on a {@link Scheduler}.
 */
public final class Connection implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Connection.class.getName());
    static final long FLUSH_GRACE_MILLIS = 5_000;
    /**
     * Bytes that may wait in one connection's send queue. A peer that stops reading while
     * more than this piles up for it is cut off, so it cannot grow the daemon's heap.
     */
    public static final long MAX_QUEUED_BYTES = 1L << 30;
    static final int READ_BUFFER_BYTES = 8 * 1024;

    private final Transport transport;
    private final FrameCodec codec;
    private final String peer;
    private final InputStream in;
    private final AtomicBoolean open = new AtomicBoolean(true);
    private final Outbox outbox;
    private final Scheduler scheduler;
    private final List<Runnable> closeHooks = new ArrayList<>();
    /** The hard close that {@link #closeAfterFlush()} schedules; cancelled once closed. */
    private volatile Scheduler.Timer forcedClose;

    public Connection(SocketChannel channel, FrameCodec codec, String peer) {
        this(Transport.of(channel), codec, peer, Thread.ofVirtual());
    }

    public Connection(Transport transport, FrameCodec codec, String peer) {
        this(transport, codec, peer, Thread.ofVirtual());
    }

    /** {@code threads} makes the writer thread (platform for the non-blocking channels, else virtual). */
    public Connection(Transport transport, FrameCodec codec, String peer, Thread.Builder threads) {
        this(transport, codec, peer, threads, MAX_QUEUED_BYTES);
    }

    Connection(Transport transport, FrameCodec codec, String peer, Thread.Builder threads, long maxQueuedBytes) {
        this(transport, codec, peer, threads, maxQueuedBytes, Scheduler.system());
    }

    /** {@code scheduler} runs this connection's timers (a manual one in tests). */
    Connection(Transport transport, FrameCodec codec, String peer, Thread.Builder threads, long maxQueuedBytes,
               Scheduler scheduler) {
        this.transport = transport;
        this.codec = codec;
        this.peer = peer;
        this.scheduler = scheduler;
        // One DataInputStream for the connection's life, not one per frame. The read buffer is
        // small because a head holds one per node; a payload bigger than it is read straight
        // into its own array, past the buffer.
        this.in = new DataInputStream(new BufferedInputStream(new TransportInput(transport), READ_BUFFER_BYTES));
        this.outbox = new Outbox(transport, peer, open, this::close, maxQueuedBytes);
        outbox.start(threads);
    }

    public String peer() {
        return peer;
    }

    /** Next frame, or null when the peer closed cleanly. */
    public Frame read() throws IOException, FrameException {
        return codec.decode(in);
    }

    /**
     * The first frame, read with {@code limits} (smaller ones; the payload budget is the same) and without the read
     * buffer: the head's door reads a stranger's join this way, so that a connection that has
     * not proven the token costs no buffer, and reads exactly that frame's bytes (what
     * follows stays in the socket for {@link #read}). Call before the first {@code read}.
     */
    public Frame readFirst(FrameLimits limits) throws IOException, FrameException {
        return codec.withLimits(limits).decode(new DataInputStream(new TransportInput(transport)));
    }

    /**
     * The bytes {@link #read} has taken from the socket but not yet returned as frames, for a
     * reader that takes the socket over ({@link ReaderLoop#register}); {@code read} must not
     * be called afterwards.
     */
    public byte[] takeBuffered() throws IOException {
        return in.readNBytes(in.available()); // available(): the buffer only, the socket is not asked
    }

    /**
     * Sends a frame: written at once by this thread when the socket is free and takes it
     * without waiting, else queued for the writer thread. Never waits for the peer;
     * silently dropped once the connection is closed or closing. A frame over the limits
     * (the peer's are this codec's: every beam process uses the same) is not sent: a reply
     * becomes an error reply that says why, anything else is dropped and logged.
     */
    public void send(Frame frame) {
        if (!open.get()) return;
        ByteBuffer[] bytes = FrameCodec.encodeBuffers(frame);
        String tooBig = codec.limits().violation(bytes[0].remaining() - 4, frame.payload().length);
        if (tooBig != null) { // the peer would cut the connection on it: refuse it here, keep the link
            Frame refusal = FrameRefusal.of(frame, tooBig);
            LOG.warning("not sending a " + frame.op() + " frame to " + peer + ": " + tooBig);
            if (refusal == null) return;
            bytes = FrameCodec.encodeBuffers(refusal);
        }
        outbox.send(bytes);
    }

    public boolean isOpen() {
        return open.get();
    }

    /** Runs {@code hook} once when the connection closes (at once if it already has). */
    public void onClose(Runnable hook) {
        synchronized (closeHooks) {
            if (open.get()) {
                closeHooks.add(hook);
                return;
            }
        }
        hook.run();
    }

    /**
     * Sends what is queued, then closes; frames sent after this are dropped. A peer that
     * does not read within {@link #FLUSH_GRACE_MILLIS} is cut off anyway.
     */
    public void closeAfterFlush() {
        if (!outbox.closeAfterFlush()) return;
        forcedClose = scheduler.after(FLUSH_GRACE_MILLIS, this::close);
        if (!open.get()) forcedClose.cancel();
    }

    /**
     * Closes this connection after {@code millis} unless the returned handle is cancelled
     * first (a handshake deadline). Holds no thread while it waits.
     */
    public Scheduler.Timer closeUnlessCancelled(long millis) {
        return scheduler.after(millis, this::close);
    }

    @Override
    public void close() {
        List<Runnable> hooks;
        synchronized (closeHooks) {
            if (!open.compareAndSet(true, false)) return;
            hooks = new ArrayList<>(closeHooks);
            closeHooks.clear();
        }
        outbox.clear();
        transport.close();
        var pending = forcedClose;
        if (pending != null) pending.cancel();
        for (Runnable hook : hooks) {
            try {
                hook.run();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "close hook failed for " + peer, e);
            }
        }
    }
}
