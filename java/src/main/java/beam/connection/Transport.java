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
    int read(byte[] b, int off, int len) throws IOException;

    /** Writes every remaining byte of {@code buffers}. */
    void write(ByteBuffer[] buffers) throws IOException;

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
                long remaining = 0;
                for (ByteBuffer b : buffers) remaining += b.remaining();
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
