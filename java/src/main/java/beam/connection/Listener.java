package beam.connection;

import beam.codec.FrameCodec;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.concurrent.Semaphore;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

/**
 * Accepts connections on one unix or TCP address. One platform thread accepts. A TCP
 * connection is handed to {@code handler} on its own thread ({@link #threads(boolean)}); a
 * unix one (a local driver or actor worker) is read by the listener's one {@link ReaderLoop},
 * which feeds the handler {@code clients} makes for it. A permit of {@code maxConnections}
 * is taken before accept and released when the connection closes, so a flood of
 * connections waits in the kernel's backlog instead of exhausting fds.
 */
public final class Listener implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Listener.class.getName());

    static final int TLS_HANDSHAKE_MILLIS = 5_000;
    /**
     * Plain TCP connections (node links) served like the unix socket's clients, on platform
     * threads with direct writes, at most this many at once; the rest get virtual threads
     * (see {@link #threads}).
     */
    static final int DIRECT_TCP_CONNECTIONS = 64;
    private final Semaphore directTcp = new Semaphore(DIRECT_TCP_CONNECTIONS);
    private final ServerSocketChannel server;
    private final ServerSocket tlsServer;
    private final FrameCodec codec;
    private final Consumer<Connection> handler;
    /** Unix listeners: the handler for each client's frames, and the thread that reads them all. */
    private final Function<Connection, ReaderLoop.Handler> clients;
    private final ReaderLoop loop;
    private final Semaphore permits;
    private final String name;
    private final Thread acceptThread;
    private final AcceptBackoff backoff;

    private Listener(ServerSocketChannel server, FrameCodec codec, int maxConnections,
                     Consumer<Connection> handler, String name) throws IOException {
        this(server, codec, maxConnections, handler, null, name, null);
    }

    private Listener(ServerSocketChannel server, FrameCodec codec, int maxConnections, Consumer<Connection> handler,
                     Function<Connection, ReaderLoop.Handler> clients, String name, ServerSocket tlsServer)
            throws IOException {
        this.server = server;
        this.tlsServer = tlsServer;
        this.codec = codec;
        this.handler = handler;
        this.clients = clients;
        this.loop = clients == null ? null : new ReaderLoop("reader " + name);
        this.permits = new Semaphore(maxConnections);
        this.name = name;
        this.backoff = new AcceptBackoff(name);
        Runnable loop = tlsServer == null ? this::acceptLoop : this::acceptTlsLoop;
        this.acceptThread = Thread.ofPlatform().daemon().name("accept " + name).unstarted(() -> guarded(loop));
    }

    /**
     * Local clients on the unix socket at {@code path}: {@code clients} makes each one's frame
     * handler, which runs on the listener's {@link ReaderLoop} and must not block.
     */
    public static Listener unix(Path path, FrameCodec codec, int maxConnections,
                                Function<Connection, ReaderLoop.Handler> clients) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            server.bind(UnixDomainSocketAddress.of(path), 512);
            return new Listener(server, codec, maxConnections, null, clients, "unix:" + path, null);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
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
    public static Listener tls(SocketAddress address, SSLContext ssl, FrameCodec codec,
                               int maxConnections, Consumer<Connection> handler) throws IOException {
        SSLServerSocket server = (SSLServerSocket) ssl.getServerSocketFactory().createServerSocket();
        server.setNeedClientAuth(true);
        server.bind(address, 512);
        return new Listener(null, codec, maxConnections, handler, null, "tls:" + address, server);
    }

    public Listener start() {
        acceptThread.start();
        return this;
    }

    /** Direct-TCP slots free now (tests). */
    int directSlotsFree() {
        return directTcp.availablePermits();
    }

    public SocketAddress localAddress() throws IOException {
        return tlsServer != null ? tlsServer.getLocalSocketAddress() : server.getLocalAddress();
    }

    private void acceptTlsLoop() {
        while (!tlsServer.isClosed()) {
            try {
                permits.acquire();
                Socket socket;
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
                        ((SSLSocket) socket).startHandshake();
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
            } catch (IOException | RuntimeException e) {
                if (tlsServer.isClosed() || !backoff.waitAfter(e)) return;
                continue;
            }
            backoff.reset();
        }
    }

    private void acceptLoop() {
        while (server.isOpen()) {
            try {
                permits.acquire();
                boolean handedOver = false;
                SocketChannel channel = null;
                try {
                    channel = server.accept();
                    String peer = loop != null ? "unix-client" : String.valueOf(channel.getRemoteAddress());
                    if (loop != null) { // unix: read by the loop
                        Connection connection = new Connection(Transport.nonBlocking(channel), codec, peer, threads(true));
                        handedOver = true; // from here on, the connection's close releases the permit
                        connection.onClose(permits::release);
                        try {
                            loop.register(connection, channel, codec, clients.apply(connection));
                        } catch (RuntimeException e) {
                            connection.close();
                            throw e;
                        }
                    } else { // TCP: a thread of its own per connection
                        channel.socket().setTcpNoDelay(true);
                        boolean direct = directTcp.tryAcquire();
                        Thread.Builder threads = threads(direct);
                        Connection connection;
                        try {
                            connection = new Connection(direct ? Transport.nonBlocking(channel) : Transport.of(channel),
                                    codec, peer, threads);
                        } catch (IOException | RuntimeException e) {
                            if (direct) directTcp.release();
                            throw e;
                        }
                        if (direct) connection.onClose(directTcp::release);
                        threads.name("conn " + peer).start(() -> serve(connection));
                    }
                    handedOver = true;
                } finally {
                    if (!handedOver) {
                        if (channel != null) closeQuietly(channel);
                        permits.release();
                    }
                }
            } catch (ClosedChannelException | InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                if (!server.isOpen() || !backoff.waitAfter(e)) return;
                continue;
            }
            backoff.reset();
        }
    }

    /**
     * Runs an accept loop; an Error in it (out of memory, say) means this daemon can take no
     * more connections, so it says so and exits (its shutdown stops the actors) rather than
     * live on deaf.
     */
    private void guarded(Runnable loop) {
        try {
            loop.run();
        } catch (Error e) {
            LOG.log(Level.SEVERE, "the accept thread of " + name + " failed (" + e
                    + "); this daemon can take no more connections and exits", e);
            System.exit(70);
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // already gone
        }
    }

    /**
     * Threads for one connection's reader and writer (a unix client's writer only: the
     * {@link ReaderLoop} reads it). Latency-bound connections (the unix socket's local
     * clients, and up to {@link #DIRECT_TCP_CONNECTIONS} node links at a time) get platform
     * threads that wait in their own selector, without the virtual-thread poller's extra hop,
     * over a non-blocking channel that senders write to directly (Connection): a
     * call to an actor on a joined node then wakes no writer thread on the head. A head with
     * more links than that (the scale benchmark's thousand simulated nodes) serves the rest on
     * virtual threads, blocking channels and queued writes, which cost a few kilobytes each.
     */
    private static Thread.Builder threads(boolean direct) {
        return direct ? Thread.ofPlatform().daemon().stackSize(256 * 1024) : Thread.ofVirtual();
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

    /**
     * Reads one more connection on this unix listener's {@link ReaderLoop}, beside its local
     * clients: a joined node's plain-TCP link to the head, so that one thread reads both the
     * head's calls and the workers' results (docs/PERFORMANCE.md). {@code buffered}: what
     * was read from it before ({@link Connection#takeBuffered}).
     */
    public void alsoRead(Connection connection, SocketChannel channel, byte[] buffered, ReaderLoop.Handler handler) {
        if (loop == null) throw new IllegalStateException("only a unix listener has a reader loop");
        loop.register(connection, channel, codec, buffered, handler);
    }

    /**
     * A unix listener's clients: ends each (its handler hears onEnd) and stops the thread that
     * reads them. Separate from {@link #close}, which only stops accepting: a stopping daemon
     * keeps reading its clients until its actors are gone.
     */
    public void closeClients() {
        if (loop != null) loop.close();
    }
}
