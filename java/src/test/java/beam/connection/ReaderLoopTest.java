package beam.connection;

import static org.assertj.core.api.Assertions.assertThat;

import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameException;
import beam.codec.FrameLimits;
import beam.util.Await;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link ReaderLoop} over real unix sockets: several clients read by its one thread. */
@Timeout(60)
class ReaderLoopTest {
    private static final FrameCodec CODEC = new FrameCodec(FrameLimits.DEFAULT);

    @TempDir
    Path temp;
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private ReaderLoop loop;
    private int sockets;

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose) c.close();
        if (loop != null) loop.close();
    }

    /** What one client's handler heard, and the thread it heard it on. */
    static class Heard implements ReaderLoop.Handler {
        final List<Frame> frames = new CopyOnWriteArrayList<>();
        final CompletableFuture<Exception> end = new CompletableFuture<>();
        final List<String> threads = new CopyOnWriteArrayList<>();
        volatile int stopAfter = Integer.MAX_VALUE;
        volatile boolean fail;

        @Override
        public boolean onFrame(Frame frame) {
            threads.add(Thread.currentThread().getName());
            if (fail) throw new IllegalStateException("handler bug");
            frames.add(frame);
            return frames.size() < stopAfter;
        }

        @Override
        public void onEnd(Exception why) {
            threads.add(Thread.currentThread().getName());
            if (!end.complete(why == null ? new Exception("clean") : why)) throw new AssertionError("onEnd twice");
        }

        Exception awaitEnd() throws Exception {
            return end.get(10, TimeUnit.SECONDS);
        }
    }

    /** A client registered with the loop: returns the peer's end, which the test writes. */
    private record Client(SocketChannel peer, Connection daemonSide, Heard heard) {
        void write(byte[] bytes) throws IOException {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) peer.write(b);
        }
    }

    private Client client() throws IOException {
        return clientWith(new Heard());
    }

    private Client clientWith(Heard heard) throws IOException {
        Socket s = socket();
        loop.register(s.connection(), s.mine(), CODEC, heard);
        return new Client(s.peer(), s.connection(), heard);
    }

    /** A connected unix socket, not yet registered: the test's end, the daemon's end and its connection. */
    private record Socket(SocketChannel peer, SocketChannel mine, Connection connection) {
    }

    private Socket socket() throws IOException {
        if (loop == null) loop = new ReaderLoop("test reader");
        Path path = temp.resolve("s" + sockets++ + ".sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(path));
            SocketChannel peer = SocketChannel.open(UnixDomainSocketAddress.of(path));
            SocketChannel mine = server.accept();
            Connection connection = new Connection(Transport.nonBlocking(mine), CODEC, "test", Thread.ofPlatform().daemon());
            toClose.add(peer);
            toClose.add(connection);
            return new Socket(peer, mine, connection);
        }
    }

    private static byte[] frame(String op, int n, int payloadBytes) {
        var h = JsonNodeFactory.instance.objectNode().put("op", op).put("n", n);
        return FrameCodec.encode(new Frame(h, new byte[payloadBytes]));
    }

    private static void awaitFrames(Heard heard, int n) throws InterruptedException {
        Await.until(() -> heard.frames.size() >= n, n + " frames heard");
        assertThat(heard.frames).hasSize(n);
    }

    @Test
    void aSocketReadBeforeIsTakenOverWithoutLosingWhatWasBuffered() throws Exception {
        // A joined node reads its link to the head frame by frame while it joins, then hands
        // the socket to the loop: frames already in the connection's buffer must come first.
        Socket s = socket();
        Connection connection = s.connection();
        var first = new java.io.ByteArrayOutputStream();
        for (int i = 0; i < 5; i++) first.write(frame("f", i, i == 3 ? 100_000 : 10)); // one write: it is read in bulk
        Client writer = new Client(s.peer(), connection, null);
        writer.write(first.toByteArray());
        assertThat(connection.read().header().get("n").asInt()).isEqualTo(0); // the join's read
        byte[] buffered = connection.takeBuffered();
        assertThat(buffered).isNotEmpty(); // frames 1.. were read into the buffer with frame 0
        Heard heard = new Heard();
        loop.register(connection, s.mine(), CODEC, buffered, heard);
        for (int i = 5; i < 8; i++) writer.write(frame("f", i, 10));
        awaitFrames(heard, 7);
        for (int i = 0; i < 7; i++) assertThat(heard.frames.get(i).header().get("n").asInt()).isEqualTo(i + 1);
        assertThat(heard.frames.get(2).payload()).hasSize(100_000);
        assertThat(heard.threads).containsOnly("test reader");
    }

    @Test
    void framesOfSeveralClientsArriveWholeAndInOrderOnTheLoopThread() throws Exception {
        List<Client> clients = List.of(client(), client(), client());
        int perClient = 300;
        // interleaved, in pieces that cut frames anywhere, payloads larger than the loop's buffer among them
        java.util.Random random = new java.util.Random(7);
        List<java.io.ByteArrayOutputStream> streams = new ArrayList<>();
        for (int c = 0; c < clients.size(); c++) {
            var s = new java.io.ByteArrayOutputStream();
            for (int i = 0; i < perClient; i++) s.write(frame("f", i, i % 50 == 0 ? 200_000 : random.nextInt(100)));
            streams.add(s);
        }
        int[] at = new int[clients.size()];
        boolean left = true;
        while (left) {
            left = false;
            for (int c = 0; c < clients.size(); c++) {
                byte[] all = streams.get(c).toByteArray();
                if (at[c] >= all.length) continue;
                int n = Math.min(all.length - at[c], 1 + random.nextInt(70_000));
                clients.get(c).write(java.util.Arrays.copyOfRange(all, at[c], at[c] + n));
                at[c] += n;
                left = true;
            }
        }
        for (Client c : clients) {
            awaitFrames(c.heard(), perClient);
            for (int i = 0; i < perClient; i++) assertThat(c.heard().frames.get(i).header().get("n").asInt()).isEqualTo(i);
            assertThat(c.heard().frames.get(50).payload()).hasSize(200_000);
            assertThat(c.heard().threads).containsOnly("test reader");
        }
    }

    @Test
    void eachWayOfEndingIsHeardOnceAndTheOthersGoOn() throws Exception {
        Client clean = client();
        Client cut = client();
        Client closedHere = client();
        Client stops = client();
        Client buggy = client();
        Client bystander = client();
        clean.write(frame("f", 0, 10));
        clean.peer().close();
        assertThat(clean.heard().awaitEnd()).hasMessage("clean");
        assertThat(clean.heard().frames).hasSize(1);

        byte[] f = frame("f", 0, 10);
        cut.write(java.util.Arrays.copyOf(f, f.length - 3));
        cut.peer().close();
        assertThat(cut.heard().awaitEnd()).isInstanceOf(FrameException.class)
                .hasMessage("connection closed in the middle of the frame payload");

        closedHere.daemonSide().close();
        assertThat(closedHere.heard().awaitEnd()).isInstanceOf(AsynchronousCloseException.class);

        stops.heard().stopAfter = 2;
        stops.write(concat(frame("f", 0, 0), frame("f", 1, 0), frame("f", 2, 0)));
        assertThat(stops.heard().awaitEnd()).hasMessage("clean");
        assertThat(stops.heard().frames).hasSize(2);

        buggy.heard().fail = true;
        buggy.write(frame("f", 0, 0));
        assertThat(buggy.heard().awaitEnd()).hasMessage("clean"); // its reading stops; the loop lives

        bystander.write(concat(frame("f", 0, 0), frame("f", 1, 0)));
        awaitFrames(bystander.heard(), 2);
        assertThat(bystander.heard().end).isNotDone();
    }

    @Test
    void aClientStuckInTheMiddleOfAFrameHoldsUpNoOne() throws Exception {
        Client stuck = client();
        Client other = client();
        byte[] f = frame("f", 0, 1000);
        stuck.write(java.util.Arrays.copyOf(f, 20)); // the prefix and part of the header, then nothing
        other.write(frame("f", 1, 0));
        awaitFrames(other.heard(), 1);
        stuck.write(java.util.Arrays.copyOfRange(f, 20, f.length));
        awaitFrames(stuck.heard(), 1);
    }

    @Test
    void aPausedClientGetsNoFrameUntilResumedAndTheOthersGoOn() throws Exception {
        Client paused = client();
        Client other = client();
        var reading = new java.util.concurrent.atomic.AtomicReference<ReaderLoop.Reading>();
        Heard heard = new Heard() {
            @Override
            public void attached(ReaderLoop.Reading r) {
                reading.set(r);
            }

            @Override
            public boolean onFrame(Frame frame) {
                super.onFrame(frame);
                if (frames.size() == 1) reading.get().pause();
                return true;
            }
        };
        Client c = clientWith(heard);
        c.write(frame("f", 0, 0));
        awaitFrames(heard, 1);
        c.write(concat(frame("f", 1, 0), frame("f", 2, 0)));
        other.write(frame("f", 0, 0));
        awaitFrames(other.heard(), 1);
        Thread.sleep(200);
        assertThat(heard.frames).hasSize(1); // paused: the socket holds them
        reading.get().resume();
        awaitFrames(heard, 3);
        assertThat(paused.heard().end).isNotDone();
    }

    @Test
    void closingTheLoopEndsEveryClientAndClosesItsConnection() throws Exception {
        Client a = client();
        Client b = client();
        a.write(frame("f", 0, 0));
        awaitFrames(a.heard(), 1);
        loop.close();
        assertThat(a.heard().awaitEnd()).isInstanceOf(AsynchronousCloseException.class);
        assertThat(b.heard().awaitEnd()).isInstanceOf(AsynchronousCloseException.class);
        ByteBuffer one = ByteBuffer.allocate(1);
        assertThat(a.peer().read(one)).isEqualTo(-1); // the daemon side closed: the peer reads the end
        loop = null;
    }

    private static byte[] concat(byte[]... parts) {
        var out = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) out.writeBytes(p);
        return out.toByteArray();
    }
}
