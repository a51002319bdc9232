package beam.connection;

import static org.assertj.core.api.Assertions.assertThat;

import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameLimits;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Connection} over real unix sockets: the daemon's end is a non-blocking channel
 * (direct writes), the peer a plain blocking channel that a test reads, or does not.
 */
@Timeout(60)
class ConnectionTest {
    private static final FrameCodec CODEC = new FrameCodec(FrameLimits.DEFAULT);

    @TempDir
    Path temp;
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private int sockets;

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose) c.close();
    }

    /** A connected pair: the daemon side as a {@link Connection}, the peer as a raw channel. */
    private record Pair(Connection daemonSide, SocketChannel peer, DataInputStream peerIn) {
        Frame next() throws Exception {
            return CODEC.decode(peerIn);
        }
    }

    private Pair pair(long maxQueuedBytes) throws IOException {
        Path path = temp.resolve("s" + sockets++ + ".sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(path));
            SocketChannel peer = SocketChannel.open(UnixDomainSocketAddress.of(path));
            SocketChannel accepted = server.accept();
            Files.delete(path);
            Connection c = new Connection(Transport.nonBlocking(accepted), CODEC, "test " + path,
                    Thread.ofPlatform().daemon(), maxQueuedBytes);
            toClose.add(c);
            toClose.add(peer);
            return new Pair(c, peer, new DataInputStream(Channels.newInputStream(peer)));
        }
    }

    private static Frame frame(String sender, int seq, int payloadBytes) {
        ObjectNode h = JsonNodeFactory.instance.objectNode();
        h.put("op", "t");
        h.put("sender", sender);
        h.put("seq", seq);
        return new Frame(h, new byte[payloadBytes]);
    }

    @Test
    void aPeerThatStopsReadingBlocksNoSenderAndNoOtherConnection() throws Exception {
        Pair stuck = pair(Connection.MAX_QUEUED_BYTES);
        Pair healthy = pair(Connection.MAX_QUEUED_BYTES);
        Thread sender = Thread.ofPlatform().daemon().start(() -> {
            for (int i = 0; i < 256; i++) stuck.daemonSide().send(frame("a", i, 64 * 1024)); // 16 MiB, far over the socket buffer
            healthy.daemonSide().send(frame("b", 0, 10));
        });
        sender.join(30_000); // a blocked sender would never return; a loaded machine may be slow
        assertThat(sender.isAlive()).as("sends to a peer that does not read return at once").isFalse();
        assertThat(healthy.next().header().get("sender").asText()).isEqualTo("b");
        assertThat(stuck.daemonSide().isOpen()).isTrue();
        // The stuck peer reads again: everything arrives, in order.
        for (int i = 0; i < 256; i++) assertThat(stuck.next().header().get("seq").asInt()).isEqualTo(i);
    }

    @Test
    void framesKeepSendOrderAcrossDirectAndQueuedWrites() throws Exception {
        Pair p = pair(Connection.MAX_QUEUED_BYTES);
        int senders = 4;
        int perSender = 400;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < senders; s++) {
            String name = "s" + s;
            int seed = s;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                // Sizes from tiny to larger than the socket buffer: some go out whole and directly,
                // some leave a remainder, some queue behind the writer.
                for (int i = 0; i < perSender; i++) p.daemonSide().send(frame(name, i, (i * 7919 + seed * 104729) % 300_000));
            }));
        }
        start.countDown();
        Map<String, Integer> next = new HashMap<>();
        for (int n = 0; n < senders * perSender; n++) {
            if (n % 100 == 0) Thread.sleep(5); // a slow reader now and then: the socket fills
            Frame f = p.next();
            String sender = f.header().get("sender").asText();
            int seq = f.header().get("seq").asInt();
            assertThat(seq).as("frame order of " + sender).isEqualTo(next.getOrDefault(sender, 0));
            assertThat(f.payload()).hasSize((seq * 7919 + Integer.parseInt(sender.substring(1)) * 104729) % 300_000);
            next.put(sender, seq + 1);
        }
        for (Thread t : threads) t.join();
    }

    /** Writes through {@code inner}, noting which thread made each write; the first writeNow waits for {@code go}. */
    private static final class WatchedTransport implements Transport {
        final Transport inner;
        final CountDownLatch inFirstWrite = new CountDownLatch(1);
        final CountDownLatch go = new CountDownLatch(1);
        final List<String> writers = java.util.Collections.synchronizedList(new ArrayList<>());

        WatchedTransport(Transport inner) {
            this.inner = inner;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return inner.read(b, off, len);
        }

        @Override
        public void write(java.nio.ByteBuffer[] buffers) throws IOException {
            writers.add(Thread.currentThread().getName());
            inner.write(buffers);
        }

        @Override
        public boolean canWriteNow() {
            return true;
        }

        @Override
        public long writeNow(java.nio.ByteBuffer[] buffers) throws IOException {
            writers.add(Thread.currentThread().getName());
            if (inFirstWrite.getCount() > 0) {
                inFirstWrite.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return inner.writeNow(buffers);
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    @Test
    void theDirectWriterAlsoWritesWhatWasQueuedBehindItInsteadOfWakingTheWriter() throws Exception {
        Path path = temp.resolve("watched.sock");
        WatchedTransport watched;
        SocketChannel peer;
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(path));
            peer = SocketChannel.open(UnixDomainSocketAddress.of(path));
            watched = new WatchedTransport(Transport.nonBlocking(server.accept()));
        }
        toClose.add(peer);
        Connection c = new Connection(watched, CODEC, "watched", Thread.ofPlatform().daemon());
        toClose.add(c);
        Thread first = Thread.ofPlatform().name("first sender").start(() -> c.send(frame("a", 0, 10)));
        assertThat(watched.inFirstWrite.await(10, TimeUnit.SECONDS)).isTrue();
        for (int i = 1; i <= 5; i++) c.send(frame("a", i, 10)); // the turn is taken: these queue
        watched.go.countDown();
        first.join(10_000);
        DataInputStream in = new DataInputStream(Channels.newInputStream(peer));
        for (int i = 0; i <= 5; i++) assertThat(CODEC.decode(in).header().get("seq").asInt()).isEqualTo(i);
        assertThat(watched.writers).as("every write, the queued frames' included, by the thread that held the turn")
                .containsOnly("first sender").hasSize(2);
    }

    @Test
    void queuedBytesOverTheLimitCutThePeerOffWithoutBlocking() throws Exception {
        Pair p = pair(1 << 20);
        CountDownLatch closed = new CountDownLatch(1);
        p.daemonSide().onClose(closed::countDown);
        for (int i = 0; i < 64 && p.daemonSide().isOpen(); i++) p.daemonSide().send(frame("a", i, 64 * 1024));
        assertThat(closed.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.daemonSide().isOpen()).isFalse();
        p.daemonSide().send(frame("a", 999, 10)); // dropped, no error
    }

    @Test
    void closeAfterFlushDeliversEverythingThenEof() throws Exception {
        Pair p = pair(Connection.MAX_QUEUED_BYTES);
        for (int i = 0; i < 40; i++) p.daemonSide().send(frame("a", i, 32 * 1024)); // more than the socket takes
        p.daemonSide().closeAfterFlush();
        p.daemonSide().send(frame("a", 40, 10)); // after the close request: dropped
        for (int i = 0; i < 40; i++) assertThat(p.next().header().get("seq").asInt()).isEqualTo(i);
        assertThat(p.next()).isNull();
        CountDownLatch closed = new CountDownLatch(1);
        p.daemonSide().onClose(closed::countDown);
        assertThat(closed.await(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void closeWakesTheReaderAndReleasesEveryFd() throws Exception {
        long before = openFds();
        for (int round = 0; round < 20; round++) {
            Pair p = pair(Connection.MAX_QUEUED_BYTES);
            AtomicReference<Object> outcome = new AtomicReference<>();
            CountDownLatch done = new CountDownLatch(1);
            Thread reader = Thread.ofPlatform().start(() -> {
                try {
                    outcome.set(p.daemonSide().read());
                } catch (Exception e) {
                    outcome.set(e);
                }
                done.countDown();
            });
            Thread.sleep(5);
            p.daemonSide().close();
            assertThat(done.await(30, TimeUnit.SECONDS)).as("reader woken by close").isTrue();
            assertThat(outcome.get()).isInstanceOfAny(IOException.class, beam.codec.FrameException.class);
            assertThat(p.peer().read(java.nio.ByteBuffer.allocate(1))).as("the peer sees EOF").isEqualTo(-1);
            p.peer().close();
            reader.join();
        }
        // No selector, eventfd or socket left behind (a little slack for the JDK's own lazy fds).
        assertThat(openFds()).isLessThanOrEqualTo(before + 3);
    }

    @Test
    void anInterruptedSenderDoesNotCloseTheConnection() throws Exception {
        Pair p = pair(Connection.MAX_QUEUED_BYTES);
        Thread sender = Thread.ofPlatform().unstarted(() -> {
            Thread.currentThread().interrupt();
            p.daemonSide().send(frame("a", 0, 10));
        });
        sender.start();
        sender.join();
        assertThat(p.next().header().get("seq").asInt()).isZero();
        assertThat(p.daemonSide().isOpen()).isTrue();
        p.daemonSide().send(frame("a", 1, 10));
        assertThat(p.next().header().get("seq").asInt()).isEqualTo(1);
    }

    @Test
    void readsFramesThatArriveInPieces() throws Exception {
        Pair p = pair(Connection.MAX_QUEUED_BYTES);
        byte[] bytes = FrameCodec.encode(frame("x", 7, 100_000));
        Thread.ofPlatform().start(() -> {
            try {
                for (int off = 0; off < bytes.length; off += 10_000) {
                    p.peer().write(java.nio.ByteBuffer.wrap(bytes, off, Math.min(10_000, bytes.length - off)));
                    Thread.sleep(2);
                }
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        Frame f = p.daemonSide().read();
        assertThat(f.header().get("seq").asInt()).isEqualTo(7);
        assertThat(f.payload()).hasSize(100_000);
    }

    private static long openFds() throws IOException {
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }
}
