package beam.connection;

import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameException;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One peer on a unix or TCP socket: {@link #read()} frames on the owner's thread and
 * {@link #send(Frame)} from any thread. Sends never block the caller: frames are encoded
 * at once and queued, and one virtual writer thread per connection drains the queue, so a
 * slow peer only ever stalls its own writer.
 *
 * <p>Threads: exactly one thread calls {@code read()}; {@code send()} and {@code close()}
 * are safe from any thread. The bytes move through a {@link Transport} (a channel, or a
 * TLS socket).
 */
public final class Connection implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Connection.class.getName());
    private static final byte[] CLOSE_MARKER = new byte[0];
    static final long FLUSH_GRACE_MILLIS = 5_000;
    /**
     * Bytes that may wait in one connection's send queue. A peer that stops reading while
     * more than this piles up for it is cut off, so it cannot grow the daemon's heap.
     */
    public static final long MAX_QUEUED_BYTES = 1L << 30;

    private final Transport transport;
    private final FrameCodec codec;
    private final String peer;
    private final InputStream in;
    private final LinkedBlockingQueue<byte[]> outbound = new LinkedBlockingQueue<>();
    private final AtomicBoolean open = new AtomicBoolean(true);
    private final java.util.concurrent.atomic.AtomicLong queuedBytes = new java.util.concurrent.atomic.AtomicLong();
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

    /** {@code threads} makes the writer thread (virtual, or platform for the few local clients). */
    public Connection(Transport transport, FrameCodec codec, String peer, Thread.Builder threads) {
        this.transport = transport;
        this.codec = codec;
        this.peer = peer;
        this.in = new BufferedInputStream(new TransportInput(transport), 64 * 1024);
        threads.name("writer " + peer).start(this::writeLoop);
    }

    public String peer() {
        return peer;
    }

    /** Next frame, or null when the peer closed cleanly. */
    public Frame read() throws IOException, FrameException {
        return codec.decode(in);
    }

    /** Queues a frame for sending; silently dropped once the connection is closed. */
    public void send(Frame frame) {
        if (!open.get()) return;
        byte[] bytes = FrameCodec.encode(frame);
        if (queuedBytes.addAndGet(bytes.length) > MAX_QUEUED_BYTES) {
            LOG.warning("closing " + peer + ": it stopped reading and " + queuedBytes.get()
                    + " bytes are queued for it (limit " + MAX_QUEUED_BYTES + ")");
            close();
            return;
        }
        outbound.add(bytes);
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
     * Sends what is queued, then closes; a peer that does not read within
     * {@link #FLUSH_GRACE_MILLIS} is cut off anyway.
     */
    public void closeAfterFlush() {
        if (!open.get() || forcedClose != null) return;
        outbound.add(CLOSE_MARKER);
        forcedClose = TIMERS.schedule(this::close, FLUSH_GRACE_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
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
        outbound.add(CLOSE_MARKER);
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

    private void writeLoop() {
        List<byte[]> batch = new ArrayList<>();
        try {
            while (true) {
                batch.clear();
                batch.add(outbound.take());
                outbound.drainTo(batch, 256);
                boolean closeAfter = false;
                List<ByteBuffer> buffers = new ArrayList<>(batch.size());
                for (byte[] b : batch) {
                    if (b == CLOSE_MARKER) {
                        closeAfter = true;
                        break;
                    }
                    buffers.add(ByteBuffer.wrap(b));
                }
                ByteBuffer[] array = buffers.toArray(ByteBuffer[]::new);
                long total = 0;
                for (ByteBuffer b : array) total += b.remaining();
                transport.write(array);
                queuedBytes.addAndGet(-total);
                if (closeAfter) break;
            }
        } catch (IOException e) {
            LOG.fine(() -> "write to " + peer + " failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        close();
    }

    /** InputStream over a transport. */
    private static final class TransportInput extends InputStream {
        private final Transport transport;

        TransportInput(Transport transport) {
            this.transport = transport;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return len == 0 ? 0 : transport.read(b, off, len);
        }
    }
}
