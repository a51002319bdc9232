package beam.connection;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The byte pipe under a {@link Connection}: a socket channel (unix or plain TCP) or a
 * socket (TLS). One thread reads while another writes; both are safe concurrently.
 */
public interface Transport extends AutoCloseable {
    /** Reads at least one byte, waiting for it; -1 at the end of the stream. */
    int read(byte[] b, int off, int len) throws IOException;

    /** Writes every remaining byte of {@code buffers}, waiting for the peer as long as it takes. */
    void write(ByteBuffer[] buffers) throws IOException;

    /** Whether {@link #writeNow} is supported: true only for {@link #nonBlocking} channels. */
    default boolean canWriteNow() {
        return false;
    }

    /**
     * Writes what the socket takes at once, never waiting for the peer; returns the number
     * of bytes written (possibly 0) and advances the buffers by as much.
     */
    default long writeNow(ByteBuffer[] buffers) throws IOException {
        throw new UnsupportedOperationException("this transport only writes blocking");
    }

    static long remaining(ByteBuffer[] buffers) {
        long n = 0;
        for (ByteBuffer b : buffers) n += b.remaining();
        return n;
    }

    /**
     * A channel switched to non-blocking mode: reads and waiting writes use selectors, and
     * any thread may {@link #writeNow} (the unix socket's local clients).
     */
    static Transport nonBlocking(SocketChannel channel) throws IOException {
        return new NonBlockingChannel(channel);
    }

    @Override
    void close();

    /** Reads and writes on a channel directly (not through Channels' streams, whose blocking lock serializes them). */
    static Transport of(SocketChannel channel) {
        return new Transport() {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return channel.read(ByteBuffer.wrap(b, off, len));
            }

            @Override
            public void write(ByteBuffer[] buffers) throws IOException {
                long remaining = remaining(buffers);
                while (remaining > 0) remaining -= channel.write(buffers);
            }

            @Override
            public void close() {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // already closed
                }
            }
        };
    }

    /** A connected socket, e.g. an {@code SSLSocket}. */
    static Transport of(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream();
        return new Transport() {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return in.read(b, off, len);
            }

            @Override
            public void write(ByteBuffer[] buffers) throws IOException {
                for (ByteBuffer b : buffers) out.write(b.array(), b.arrayOffset() + b.position(), b.remaining());
                out.flush();
            }

            @Override
            public void close() {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // already closed
                }
            }
        };
    }
}
