package beam.connection;

import beam.codec.Frame;
import beam.codec.FrameAssembler;
import beam.codec.FrameCodec;
import beam.codec.FrameException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One platform thread that reads the sockets of all of a daemon's local clients (drivers and
 * actor workers on this machine), and on a joined node its plain-TCP link to the head too
 * ({@link Listener#alsoRead}), through one selector, and hands each whole frame to that
 * client's {@link Handler}, in arrival order. Results of several actors that come in
 * together are read in one wake-up of one thread, where a thread per client woke once per
 * result (docs/PERFORMANCE.md). Writes do not pass through here: a handler forwards a frame
 * with {@link Connection#send}, which writes it on this thread when the target's socket
 * takes it.
 *
 * <p>Handlers run on this thread, so they must not block: what may wait (a reachability
 * probe, say) is handed to another thread by the handler, in order (dispatch/LocalClient).
 *
 * <p>A client is read until the first of: the end of its stream (its handler hears
 * {@code onEnd(null)}), a framing violation or socket error ({@code onEnd(error)}), its
 * handler asking to stop, its {@link Connection} closing from elsewhere, or {@link #close};
 * then its handler hears {@code onEnd} exactly once, on this thread, after its last frame,
 * and its connection is closed once what is queued for it is written. Each ready client gets
 * at most {@link #READS_PER_TURN} reads per turn of the loop, so one that floods the daemon
 * delays the others by a few buffers at most. A handler may {@link Handler#attached pause} its
 * client's reading (the socket then backs up in the kernel) and resume it from any thread.
 */
public final class ReaderLoop implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ReaderLoop.class.getName());
    static final int BUFFER_BYTES = 64 * 1024;
    static final int READS_PER_TURN = 4;

    /** What a {@link ReaderLoop} tells about one client; both run on the loop's thread. */
    public interface Handler {
        /** The next whole frame; false to stop reading this client. Must not block. */
        boolean onFrame(Frame frame);

        /**
         * Reading has ended: null for a clean end of stream, else why. Called once, after the
         * last frame; the loop then closes the connection once what is queued for it is written.
         */
        void onEnd(Exception why);

        /** Called once on the loop thread before the first frame, with the way to pause this client's reading. */
        default void attached(Reading reading) {
        }
    }

    /** One client's reading, which its handler may pause (on the loop thread) and resume (from any thread). */
    public interface Reading {
        /** No more frames until {@link #resume}; call it on the loop thread (from a handler). */
        void pause();

        /** Frames flow again; safe from any thread. */
        void resume();
    }

    private final Selector selector;
    /** Filled by each read and drained into the clients' assemblers at once (loop thread only). */
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES);
    /** Registrations and closes from other threads, run by the loop between selects. */
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private final Consumer<SelectionKey> onReady = this::ready; // made once, not per select

    public ReaderLoop(String name) throws IOException {
        this.selector = Selector.open();
        this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this::guardedRun);
        thread.start();
    }

    /**
     * Starts reading {@code connection}'s socket ({@code channel}, non-blocking) for
     * {@code handler}. When the connection closes from elsewhere (a failed write, a
     * shutdown), the handler hears {@code onEnd} with an {@link AsynchronousCloseException}.
     */
    public void register(Connection connection, SocketChannel channel, FrameCodec codec, Handler handler) {
        register(connection, channel, codec, new byte[0], handler);
    }

    /**
     * As {@link #register(Connection, SocketChannel, FrameCodec, Handler)}, for a socket that
     * was read before ({@code buffered}: what that reading took from it and did not use,
     * {@link Connection#takeBuffered}); its frames reach the handler first.
     */
    public void register(Connection connection, SocketChannel channel, FrameCodec codec, byte[] buffered,
                         Handler handler) {
        Client client = new Client(connection, channel, new FrameAssembler(codec), handler);
        runOnLoop(() -> {
            try {
                client.key = channel.register(selector, SelectionKey.OP_READ, client);
                handler.attached(client);
                if (buffered.length > 0) client.feed(ByteBuffer.wrap(buffered));
            } catch (IOException | RuntimeException e) { // closed meanwhile
                client.end(new AsynchronousCloseException());
            }
        });
        connection.onClose(() -> runOnLoop(() -> client.end(new AsynchronousCloseException())));
    }

    private void runOnLoop(Runnable task) {
        tasks.add(task);
        selector.wakeup();
    }

    /** An Error on this thread leaves every local client unserved: say so and exit (as the accept threads do). */
    private void guardedRun() {
        try {
            run();
        } catch (Error e) {
            LOG.log(Level.SEVERE, thread.getName() + " failed (" + e + "); this daemon can serve no local client "
                    + "and exits", e);
            System.exit(70);
        }
    }

    private void run() {
        while (true) {
            try {
                selector.select(onReady);
            } catch (ClosedSelectorException e) {
                return;
            } catch (IOException e) {
                LOG.warning(thread.getName() + ": select failed: " + e);
            }
            for (Runnable task; (task = tasks.poll()) != null; ) {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.log(Level.SEVERE, "bug: a task of " + thread.getName() + " failed", e);
                }
            }
        }
    }

    private void ready(SelectionKey key) {
        ((Client) key.attachment()).readAvailable(buffer);
    }

    /**
     * Ends every client (its handler hears {@code onEnd}, its connection closes once flushed),
     * then stops the thread. The daemon calls this last in its shutdown, so that its clients
     * are read until then, as each had its own reader before.
     */
    @Override
    public void close() {
        if (!thread.isAlive()) {
            closeSelector();
            return;
        }
        runOnLoop(() -> {
            for (SelectionKey key : selector.keys()) {
                if (key.attachment() instanceof Client client) client.end(new AsynchronousCloseException());
            }
            closeSelector();
        });
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void closeSelector() {
        try {
            selector.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /** One client's read state (loop thread only, but for {@link #resume}). */
    private final class Client implements Reading {
        private final Connection connection;
        private final SocketChannel channel;
        private final FrameAssembler assembler;
        private final Handler handler;
        private final Predicate<Frame> deliver = this::deliver; // made once, not per read
        SelectionKey key;
        private boolean ended;

        Client(Connection connection, SocketChannel channel, FrameAssembler assembler, Handler handler) {
            this.connection = connection;
            this.channel = channel;
            this.assembler = assembler;
            this.handler = handler;
        }

        void readAvailable(ByteBuffer buffer) {
            try {
                for (int reads = 0; reads < READS_PER_TURN && !ended; reads++) {
                    buffer.clear();
                    int n = channel.read(buffer);
                    if (n < 0) {
                        end(assembler.endOfStream());
                        return;
                    }
                    buffer.flip();
                    if (!feed(buffer)) return;
                    // drained, paused, or closed meanwhile from another thread
                    if (n < buffer.capacity() || !key.isValid() || key.interestOps() == 0) return;
                }
            } catch (IOException e) {
                end(e);
            } catch (RuntimeException e) { // a bug: this client ends, the loop goes on
                LOG.log(Level.SEVERE, "bug while reading a client; closing it", e);
                end(e);
            }
        }

        /** Hands the frames in {@code bytes} to the handler; false once this client has ended. */
        boolean feed(ByteBuffer bytes) {
            try {
                if (assembler.feed(bytes, deliver)) return true;
                end(null);
            } catch (FrameException e) {
                end(e);
            } catch (RuntimeException e) { // a bug: this client ends, the loop goes on
                LOG.log(Level.SEVERE, "bug while reading a client; closing it", e);
                end(e);
            }
            return false;
        }

        @Override
        public void pause() {
            if (!ended && key.isValid()) key.interestOps(0);
        }

        @Override
        public void resume() {
            runOnLoop(() -> {
                if (!ended && key.isValid()) key.interestOps(SelectionKey.OP_READ);
            });
        }

        private boolean deliver(Frame frame) {
            try {
                return handler.onFrame(frame);
            } catch (RuntimeException e) {
                LOG.log(Level.SEVERE, "bug: a frame handler failed; closing that client", e);
                return false;
            }
        }

        void end(Exception why) {
            if (ended) return;
            ended = true;
            assembler.release();
            if (key != null) key.cancel();
            try {
                handler.onEnd(why);
            } catch (RuntimeException e) {
                LOG.log(Level.SEVERE, "bug: a client's end handler failed", e);
            } finally {
                connection.closeAfterFlush();
            }
        }
    }
}
