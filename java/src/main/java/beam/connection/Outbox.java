package beam.connection;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Logger;

/**
 * The send side of one {@link Connection}: its queue of frames not yet written and the
 * write turn.
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
 *
 * <p>Bytes queued and not yet written are capped at {@code maxQueuedBytes}: a send over it
 * closes the connection. {@link #closeAfterFlush()} hands the turn to the writer, which
 * closes once the queue is empty.
 */
final class Outbox {
    private static final Logger LOG = Logger.getLogger(Outbox.class.getName());
    /** Buffers (a frame is one or two) the writer thread hands to one gathering write. */
    private static final int BATCH = 256;
    /** Extra writes a DIRECT turn's holder makes for frames queued behind it before it wakes the writer. */
    static final int DIRECT_DRAINS = 8;

    private enum Turn { IDLE, DIRECT, WRITER }

    private final Transport transport;
    private final String peer;
    private final AtomicBoolean open; // the connection's
    private final Runnable close; // the connection's close
    private final long maxQueuedBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition writerTurn = lock.newCondition();
    /** Frames not yet (fully) written, as buffers in send order; non-empty only while the turn is taken. */
    private final ArrayDeque<ByteBuffer> queue = new ArrayDeque<>(); // guarded by lock
    /** Bytes queued, including those the writer has taken and not yet written. */
    private long queuedBytes; // guarded by lock
    private Turn turn = Turn.IDLE; // guarded by lock
    private boolean closeWhenFlushed; // guarded by lock

    Outbox(Transport transport, String peer, AtomicBoolean open, Runnable close, long maxQueuedBytes) {
        this.transport = transport;
        this.peer = peer;
        this.open = open;
        this.close = close;
        this.maxQueuedBytes = maxQueuedBytes;
    }

    /** Starts the writer thread, made by {@code threads}. */
    void start(Thread.Builder threads) {
        threads.name("writer " + peer).start(this::writeLoop);
    }

    /** Writes {@code bytes} (one frame) now or queues them; dropped once closing. */
    void send(ByteBuffer[] bytes) {
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
                close.run();
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
        close.run();
    }

    /** Hands the turn to the writer, which closes once the queue is empty; false if closing or closed already. */
    boolean closeAfterFlush() {
        lock.lock();
        try {
            if (!open.get() || closeWhenFlushed) return false;
            closeWhenFlushed = true;
            if (turn == Turn.IDLE) handToWriter();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Drops what is queued and wakes the writer, which ends (the connection is closed). */
    void clear() {
        lock.lock();
        try {
            queue.clear();
            queuedBytes = 0;
            writerTurn.signal();
        } finally {
            lock.unlock();
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
            close.run();
        }
    }
}
