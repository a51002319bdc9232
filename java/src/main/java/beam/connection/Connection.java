package beam.connection;

import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameException;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One peer on a unix or TCP socket: {@link #read()} frames on the owner's thread and
 * {@link #send(Frame)} from any thread; the bytes move through a {@link Transport}. A send
 * never waits for the peer, so a slow or stuck peer stalls only this connection's own
 * writer thread, never a thread that serves someone else.
 *
 * <p><b>Writes.</b> At most one thread writes to the socket at a time: the holder of the
 * write turn. The turn and the queue change only under {@link #lock}:
 * <pre>
 *   IDLE   --send: transport can write now (non-blocking channel)--------> DIRECT
 *   IDLE   --send: it cannot (blocking channel, TLS) / closeAfterFlush-----> WRITER
 *   DIRECT --the frame went out whole, nothing queued meanwhile------------> IDLE
 *   DIRECT --frames were queued meanwhile: write them too (DIRECT_DRAINS)--> DIRECT
 *   DIRECT --a remainder is left, drains used up, interrupted, or closing--> WRITER
 *   WRITER --queue empty, no close requested-------------------------------> IDLE
 * </pre>
 * DIRECT: the sending thread writes its frame itself with one non-blocking write
 * ({@link Transport#writeNow}), so forwarding a call wakes no other thread, and then what
 * other sends queued behind it meanwhile; whatever the socket did not take goes to the head
 * of the queue. WRITER: this connection's writer
 * thread drains the queue, waiting for the socket to drain (it blocks only itself). A send
 * that finds the turn taken queues its frame behind the holder, and the queue is non-empty
 * only while someone holds the turn, so frames leave in send order. Non-blocking channels
 * (the unix socket's clients, a joined node's link, up to 64 plain-TCP links on the head at a
 * time: Listener.threads) take the DIRECT path; blocking channels (the other node links) and
 * TLS cannot write without blocking, so their frames always take the WRITER path, and so do
 * frames sent by an interrupted thread (NIO closes a channel that an interrupted thread does
 * I/O on).
 *
 * <p><b>Limits and closing.</b> Bytes queued and not yet written are capped at
 * {@link #MAX_QUEUED_BYTES}; {@link #closeAfterFlush()} hands the turn to the writer, which
 * closes once the queue is empty. Exactly one thread calls {@code read()}; {@code send()}
 * and {@code close()} are safe from any thread.
 */
public final class Connection implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Connection.class.getName());
    static final long FLUSH_GRACE_MILLIS = 5_000;
    /** Buffers (a frame is one or two) the writer thread hands to one gathering write. */
    private static final int BATCH = 256;
    /** Extra writes a DIRECT turn's holder makes for frames queued behind it before it wakes the writer. */
    static final int DIRECT_DRAINS = 8;
    /**
     * Bytes that may wait in one connection's send queue. A peer that stops reading while
     * more than this piles up for it is cut off, so it cannot grow the daemon's heap.
     */
    public static final long MAX_QUEUED_BYTES = 1L << 30;
    static final int READ_BUFFER_BYTES = 8 * 1024;

    private enum Turn { IDLE, DIRECT, WRITER }

    private final Transport transport;
    private final FrameCodec codec;
    private final String peer;
    private final InputStream in;
    private final AtomicBoolean open = new AtomicBoolean(true);
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition writerTurn = lock.newCondition();
    /** Frames not yet (fully) written, as buffers in send order; non-empty only while the turn is taken. */
    private final ArrayDeque<ByteBuffer> queue = new ArrayDeque<>(); // guarded by lock
    /** Bytes queued, including those the writer has taken and not yet written. */
    private long queuedBytes; // guarded by lock
    private Turn turn = Turn.IDLE; // guarded by lock
    private boolean closeWhenFlushed; // guarded by lock
    private final long maxQueuedBytes;
    private final List<Runnable> closeHooks = new ArrayList<>();
    /** The hard close that {@link #closeAfterFlush()} schedules; cancelled once closed. */
    private volatile java.util.concurrent.ScheduledFuture<?> forcedClose;
    private static final java.util.concurrent.ScheduledThreadPoolExecutor TIMERS = timers();

    private static java.util.concurrent.ScheduledThreadPoolExecutor timers() {
        var t = new java.util.concurrent.ScheduledThreadPoolExecutor(1,
                r -> Thread.ofPlatform().daemon().name("connection-timers").unstarted(r));
        t.setRemoveOnCancelPolicy(true);
        return t;
    }

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
        this.transport = transport;
        this.codec = codec;
        this.peer = peer;
        this.maxQueuedBytes = maxQueuedBytes;
        // DataInputStream once here, not per frame in FrameCodec.decode. The buffer is per link
        // (a head holds one per node: 64 KiB made 10,000 nodes cost 640 MiB of heap); a payload
        // bigger than it is read straight into its own array, past the buffer.
        this.in = new DataInputStream(new BufferedInputStream(new TransportInput(transport), READ_BUFFER_BYTES));
        threads.name("writer " + peer).start(this::writeLoop);
    }

    public String peer() {
        return peer;
    }

    /** Next frame, or null when the peer closed cleanly. */
    public Frame read() throws IOException, FrameException {
        return codec.decode(in);
    }

    /**
     * The first frame, read with {@code limits} (smaller ones; the payload budget is the same) and without the 64 KiB read
     * buffer: the head's door reads a stranger's join this way, so that a connection that has
     * not proven the token costs no buffer, and reads exactly that frame's bytes (what
     * follows stays in the socket for {@link #read}). Call before the first {@code read}.
     */
    public Frame readFirst(beam.codec.FrameLimits limits) throws IOException, FrameException {
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
            Frame refusal = beam.codec.FrameRefusal.of(frame, tooBig);
            LOG.warning("not sending a " + frame.op() + " frame to " + peer + ": " + tooBig);
            if (refusal == null) return;
            bytes = FrameCodec.encodeBuffers(refusal);
        }
        lock.lock();
        try {
            if (!open.get() || closeWhenFlushed) return;
            // An interrupted thread must not touch the channel: NIO would close it (interruptible channel).
            if (turn != Turn.IDLE || !transport.canWriteNow() || Thread.currentThread().isInterrupted()) {
                if (enqueue(bytes)) return;
                bytes = null; // over the limit
            } else {
                turn = Turn.DIRECT;
            }
        } finally {
            lock.unlock();
        }
        if (bytes != null) writeDirect(bytes);
        else overflow();
    }

    /**
     * Holding the DIRECT turn: one non-blocking write, then the turn goes back or to the
     * writer. Frames that other threads queued behind this one meanwhile (results of several
     * actors for one driver arrive together) are written by this thread too, up to
     * {@link #DIRECT_DRAINS} more writes, rather than waking the writer thread for them.
     */
    private void writeDirect(ByteBuffer[] bytes) {
        long counted = 0; // bytes of `bytes` that queuedBytes still counts (taken from the queue)
        for (int drains = 0; ; drains++) {
            try {
                transport.writeNow(bytes);
            } catch (IOException e) {
                LOG.fine(() -> "write to " + peer + " failed: " + e.getMessage());
                close();
                return;
            }
            lock.lock();
            try {
                if (!open.get()) return; // closed meanwhile: the queue stays empty (and uncounted)
                queuedBytes -= counted;
                boolean remainder = false;
                for (int i = bytes.length - 1; i >= 0; i--) {
                    if (!bytes[i].hasRemaining()) break;
                    queue.addFirst(bytes[i]);
                    queuedBytes += bytes[i].remaining();
                    remainder = true;
                }
                if (queue.isEmpty() && !closeWhenFlushed) {
                    turn = Turn.IDLE;
                    return;
                }
                if (remainder || closeWhenFlushed || drains >= DIRECT_DRAINS || Thread.currentThread().isInterrupted()) {
                    handToWriter();
                    return;
                }
                bytes = takeBatch();
                counted = Transport.remaining(bytes);
            } finally {
                lock.unlock();
            }
        }
    }

    /** Under the lock: up to {@link #BATCH} buffers from the head of the queue, still counted in queuedBytes. */
    private ByteBuffer[] takeBatch() {
        int n = Math.min(BATCH, queue.size());
        ByteBuffer[] batch = new ByteBuffer[n];
        for (int i = 0; i < n; i++) batch[i] = queue.pollFirst();
        return batch;
    }

    /** Under the lock: queues one frame's buffers and makes sure someone holds the turn; false if over the limit. */
    private boolean enqueue(ByteBuffer[] bytes) {
        long size = Transport.remaining(bytes);
        if (queuedBytes + size > maxQueuedBytes) return false;
        for (ByteBuffer b : bytes) queue.addLast(b);
        queuedBytes += size;
        if (turn == Turn.IDLE) handToWriter();
        return true;
    }

    private void handToWriter() {
        turn = Turn.WRITER;
        writerTurn.signal();
    }

    private void overflow() {
        long queued;
        lock.lock();
        try {
            queued = queuedBytes;
        } finally {
            lock.unlock();
        }
        LOG.warning("closing " + peer + ": it stopped reading and " + queued + " bytes are queued for it (limit "
                + maxQueuedBytes + ")");
        close();
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
        lock.lock();
        try {
            if (!open.get() || closeWhenFlushed) return;
            closeWhenFlushed = true;
            if (turn == Turn.IDLE) handToWriter();
        } finally {
            lock.unlock();
        }
        forcedClose = TIMERS.schedule(this::close, FLUSH_GRACE_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
        if (!open.get()) forcedClose.cancel(false);
    }

    /**
     * Closes this connection after {@code millis} unless the returned handle is cancelled
     * first (a handshake deadline). Holds no thread while it waits.
     */
    public java.util.concurrent.ScheduledFuture<?> closeUnlessCancelled(long millis) {
        return TIMERS.schedule(this::close, millis, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        List<Runnable> hooks;
        synchronized (closeHooks) {
            if (!open.compareAndSet(true, false)) return;
            hooks = new ArrayList<>(closeHooks);
            closeHooks.clear();
        }
        lock.lock();
        try {
            queue.clear();
            queuedBytes = 0;
            writerTurn.signal();
        } finally {
            lock.unlock();
        }
        transport.close();
        var pending = forcedClose;
        if (pending != null) pending.cancel(false);
        for (Runnable hook : hooks) {
            try {
                hook.run();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "close hook failed for " + peer, e);
            }
        }
    }

    /** The writer thread: waits for the WRITER turn, drains the queue in batches, gives the turn back. */
    private void writeLoop() {
        List<ByteBuffer> batch = new ArrayList<>();
        try {
            while (true) {
                lock.lock();
                try {
                    while (turn != Turn.WRITER && open.get()) writerTurn.await();
                    if (!open.get()) return;
                    batch.clear();
                    for (ByteBuffer b; batch.size() < BATCH && (b = queue.pollFirst()) != null; ) batch.add(b);
                    if (batch.isEmpty()) {
                        if (closeWhenFlushed) break;
                        turn = Turn.IDLE;
                        continue;
                    }
                } finally {
                    lock.unlock();
                }
                ByteBuffer[] buffers = batch.toArray(ByteBuffer[]::new);
                long total = Transport.remaining(buffers);
                transport.write(buffers);
                lock.lock();
                try {
                    queuedBytes -= total;
                } finally {
                    lock.unlock();
                }
            }
        } catch (IOException e) {
            LOG.fine(() -> "write to " + peer + " failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            close();
        }
    }
}
