package beam.connection;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * A {@link Transport} over a socket channel in non-blocking mode, so that any thread can
 * offer bytes with {@link #writeNow} without ever waiting for the peer. The two blocking
 * operations wait on a selector of their own: {@link #read} (the connection's reader) for
 * readability, {@link #write} (the connection's writer thread) for writability. Both
 * selectors are opened on first need: most connections never fill their socket buffer, and
 * the local clients' channels are read by the daemon's {@link ReaderLoop} instead (so is a
 * joined node's link to the head once it has joined; the read selector its join may have
 * opened then stays unused until the link closes).
 * {@link #close} closes the channel and both selectors, which wakes either waiter.
 */
final class NonBlockingChannel implements Transport {
    private final SocketChannel channel;
    private Selector readable; // guarded by this
    private Selector writable; // guarded by this
    private boolean closed; // guarded by this
    /** The last read returned less than asked for (reader thread only). */
    private boolean drained;

    NonBlockingChannel(SocketChannel channel) throws IOException {
        this.channel = channel;
        channel.configureBlocking(false);
    }

    /** The channel, for a {@link ReaderLoop} to register. */
    SocketChannel channel() {
        return channel;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        ByteBuffer into = ByteBuffer.wrap(b, off, len);
        // After a short read the socket is most likely empty: wait first rather than make a
        // read that fails with EAGAIN (one syscall less per frame in request/response traffic).
        if (drained) await(readSelector());
        while (true) {
            int n = channel.read(into);
            if (n != 0) {
                drained = n < len;
                return n;
            }
            await(readSelector());
        }
    }

    private synchronized Selector readSelector() throws IOException {
        if (readable == null) readable = selectorFor(SelectionKey.OP_READ);
        return readable;
    }

    private synchronized Selector writeSelector() throws IOException {
        if (writable == null) writable = selectorFor(SelectionKey.OP_WRITE);
        return writable;
    }

    /** Under the lock: a new selector with the channel registered for {@code op}; throws once closed. */
    private Selector selectorFor(int op) throws IOException {
        if (closed) throw new AsynchronousCloseException();
        Selector selector = Selector.open();
        try {
            channel.register(selector, op);
        } catch (IOException | RuntimeException e) {
            selector.close();
            throw e;
        }
        return selector;
    }

    @Override
    public boolean canWriteNow() {
        return true;
    }

    @Override
    public long writeNow(ByteBuffer[] buffers) throws IOException {
        long total = 0;
        long n;
        do {
            n = channel.write(buffers);
            total += n;
        } while (n > 0 && Transport.remaining(buffers) > 0);
        return total;
    }

    @Override
    public void write(ByteBuffer[] buffers) throws IOException {
        while (true) {
            writeNow(buffers);
            if (Transport.remaining(buffers) == 0) return;
            await(writeSelector());
        }
    }

    /** Waits until {@code selector} reports its one channel ready; throws once closed. */
    private void await(Selector selector) throws IOException {
        try {
            selector.select(ready -> { }); // the action form: no selected-key set to fill and clear each time
        } catch (ClosedSelectorException e) {
            throw new AsynchronousCloseException();
        }
        if (!channel.isOpen()) throw new AsynchronousCloseException();
    }

    @Override
    public void close() {
        Selector r;
        Selector w;
        synchronized (this) {
            closed = true;
            r = readable;
            w = writable;
        }
        // The fd is released when the last selector lets go of the closed channel.
        quietly(channel);
        if (r != null) quietly(r);
        if (w != null) quietly(w);
    }

    private static void quietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing anyway
        }
    }
}
