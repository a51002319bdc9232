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
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One platform thread that reads the sockets of all of a daemon's local clients (drivers and
 * actor workers on this machine) through one selector, and hands each whole frame to that
 * client's {@link Handler}, in arrival order. Results of several actors that come in
 * together are read in one wake-up of one thread, where a thread per client woke once per
 * result (docs/PERFORMANCE.md). Writes do not pass through here: a handler forwards a frame
 * with {@link Connection#send}, which writes it on this thread when the target's socket
 * takes it.
 *
 * <p>Handlers run on this thread, so they must not block: what may wait (a reachability
 * probe, say) is handed to another thread by the handler, in order (LocalClients).
 *
 * <p>A client is read until the first of: the end of its stream (its handler hears
 * {@code onEnd(null)}), a framing violation or socket error ({@code onEnd(error)}), its
 * handler asking to stop, or its {@link Connection} closing from elsewhere; then its handler
 * hears {@code onEnd} exactly once, on this thread, after its last frame. Each ready client
 * gets at most {@link #READS_PER_TURN} reads per turn of the loop, so one that floods the
 * daemon delays the others by a few buffers at most.
 */
public final class ReaderLoop implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ReaderLoop.class.getName());
    static final int BUFFER_BYTES = 64 * 1024;
    static final int READS_PER_TURN = 4;

    /** What a {@link ReaderLoop} tells about one client; both run on the loop's thread. */
    public interface Handler {
        /** The next whole frame; false to stop reading this client. Must not block. */
        boolean onFrame(Frame frame);

        /** Reading has ended: null for a clean end of stream, else why. Called once, after the last frame. */
        void onEnd(Exception why);
    }

    private final Selector selector;
    /** Filled by each read and drained into the clients' assemblers at once (loop thread only). */
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER_BYTES);
    /** Registrations and closes from other threads, run by the loop between selects. */
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private final java.util.function.Consumer<SelectionKey> onReady = this::ready; // made once, not per select

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
        Client client = new Client(channel, new FrameAssembler(codec), handler);
        runOnLoop(() -> {
            try {
                client.key = channel.register(selector, SelectionKey.OP_READ, client);
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
            for (Runnable task; (task = tasks.poll()) != null; ) task.run();
        }
    }

    private void ready(SelectionKey key) {
        ((Client) key.attachment()).readAvailable(buffer);
    }

    @Override
    public void close() {
        try {
            selector.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /** One client's read state (loop thread only). */
    private static final class Client {
        private final SocketChannel channel;
        private final FrameAssembler assembler;
        private final Handler handler;
        private final java.util.function.Predicate<Frame> deliver = this::deliver; // made once, not per read
        SelectionKey key;
        private boolean ended;

        Client(SocketChannel channel, FrameAssembler assembler, Handler handler) {
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
                    if (!assembler.feed(buffer, deliver)) {
                        end(null);
                        return;
                    }
                    if (n < buffer.capacity()) return; // the socket is drained
                }
            } catch (FrameException | IOException e) {
                end(e);
            }
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
            if (key != null) key.cancel();
            try {
                handler.onEnd(why);
            } catch (RuntimeException e) {
                LOG.log(Level.SEVERE, "bug: a client's end handler failed", e);
            }
        }
    }
}
