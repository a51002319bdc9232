package beam.connection;

import beam.codec.FrameCodec;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Accepts connections on one unix or TCP address. One platform thread accepts; each
 * connection is handed to {@code handler} on its own thread ({@link #threads()}). A permit of
 * {@code maxConnections} is taken before accept and released when the connection closes,
 * so a flood of connections waits in the kernel's backlog instead of exhausting fds.
 */
public final class Listener implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Listener.class.getName());

    static final int TLS_HANDSHAKE_MILLIS = 5_000;
    private final ServerSocketChannel server;
    private final java.net.ServerSocket tlsServer;
    private final FrameCodec codec;
    private final Consumer<Connection> handler;
    private final Semaphore permits;
    private final String name;
    private final Thread acceptThread;

    private Listener(ServerSocketChannel server, FrameCodec codec, int maxConnections,
                     Consumer<Connection> handler, String name) {
        this(server, codec, maxConnections, handler, name, null);
    }

    private Listener(ServerSocketChannel server, FrameCodec codec, int maxConnections,
                     Consumer<Connection> handler, String name, java.net.ServerSocket tlsServer) {
        this.server = server;
        this.tlsServer = tlsServer;
        this.codec = codec;
        this.handler = handler;
        this.permits = new Semaphore(maxConnections);
        this.name = name;
        this.acceptThread = Thread.ofPlatform().daemon().name("accept " + name)
                .unstarted(tlsServer == null ? this::acceptLoop : this::acceptTlsLoop);
    }

    public static Listener unix(java.nio.file.Path path, FrameCodec codec, int maxConnections,
                                Consumer<Connection> handler) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(path), 512);
        return new Listener(server, codec, maxConnections, handler, "unix:" + path);
    }

    public static Listener tcp(SocketAddress address, FrameCodec codec, int maxConnections,
                               Consumer<Connection> handler) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.INET);
        server.bind(address, 512);
        return new Listener(server, codec, maxConnections, handler, "tcp:" + address);
    }

    /**
     * A TLS listener on {@code address}: mutual TLS (client certificates required). The
     * handshake runs on the connection's virtual thread, so a stalled peer holds up no one.
     */
    public static Listener tls(SocketAddress address, javax.net.ssl.SSLContext ssl, FrameCodec codec,
                               int maxConnections, Consumer<Connection> handler) throws IOException {
        javax.net.ssl.SSLServerSocket server = (javax.net.ssl.SSLServerSocket) ssl.getServerSocketFactory().createServerSocket();
        server.setNeedClientAuth(true);
        server.bind(address, 512);
        return new Listener(null, codec, maxConnections, handler, "tls:" + address, server);
    }

    public Listener start() {
        acceptThread.start();
        return this;
    }

    public SocketAddress localAddress() throws IOException {
        return tlsServer != null ? tlsServer.getLocalSocketAddress() : server.getLocalAddress();
    }

    private void acceptTlsLoop() {
        while (!tlsServer.isClosed()) {
            try {
                permits.acquire();
                java.net.Socket socket;
                try {
                    socket = tlsServer.accept();
                } catch (IOException e) {
                    permits.release();
                    throw e;
                }
                socket.setTcpNoDelay(true);
                String peer = String.valueOf(socket.getRemoteSocketAddress());
                Thread.ofVirtual().name("conn " + peer).start(() -> {
                    Connection connection;
                    try {
                        socket.setSoTimeout(TLS_HANDSHAKE_MILLIS); // a peer that never says hello is dropped
                        ((javax.net.ssl.SSLSocket) socket).startHandshake();
                        socket.setSoTimeout(0);
                        connection = new Connection(Transport.of(socket), codec, peer);
                    } catch (IOException e) {
                        LOG.warning("TLS handshake with " + peer + " failed: " + e.getMessage());
                        try {
                            socket.close();
                        } catch (IOException ignored) {
                            // gone
                        }
                        permits.release();
                        return;
                    }
                    serve(connection);
                });
            } catch (InterruptedException e) {
                return;
            } catch (IOException e) {
                if (!tlsServer.isClosed()) LOG.log(Level.WARNING, "accept failed on " + name, e);
            }
        }
    }

    private void acceptLoop() {
        while (server.isOpen()) {
            try {
                permits.acquire();
                SocketChannel channel;
                try {
                    channel = server.accept();
                } catch (IOException e) {
                    permits.release();
                    throw e;
                }
                boolean unix = name.startsWith("unix");
                String peer = unix ? "unix-client" : String.valueOf(channel.getRemoteAddress());
                if (!unix) channel.socket().setTcpNoDelay(true);
                Connection connection;
                try {
                    connection = new Connection(unix ? Transport.nonBlocking(channel) : Transport.of(channel),
                            codec, peer, threads());
                } catch (IOException e) {
                    channel.close();
                    permits.release();
                    throw e;
                }
                threads().name("conn " + peer).start(() -> serve(connection));
            } catch (ClosedChannelException e) {
                return;
            } catch (InterruptedException e) {
                return;
            } catch (IOException e) {
                if (server.isOpen()) LOG.log(Level.WARNING, "accept failed on " + name, e);
            }
        }
    }

    /**
     * Threads for one connection's reader and writer. The unix socket serves a handful of
     * local clients whose calls are latency-bound: platform threads there wait in their own
     * selector, without the virtual-thread poller's extra hop, and the channel is
     * non-blocking so that senders write to it directly (Connection). TCP serves node
     * links, possibly a thousand: virtual threads, blocking channels, queued writes.
     */
    private Thread.Builder threads() {
        return name.startsWith("unix") ? Thread.ofPlatform().daemon().stackSize(256 * 1024) : Thread.ofVirtual();
    }

    /** Runs the handler for one accepted connection; its permit returns when it closes. */
    private void serve(Connection connection) {
        connection.onClose(permits::release);
        try {
            handler.accept(connection);
        } catch (RuntimeException e) {
            LOG.log(Level.SEVERE, "connection handler failed for " + connection.peer(), e);
        } finally {
            connection.closeAfterFlush();
        }
    }

    @Override
    public void close() {
        try {
            if (server != null) server.close();
            if (tlsServer != null) tlsServer.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        acceptThread.interrupt();
    }
}
