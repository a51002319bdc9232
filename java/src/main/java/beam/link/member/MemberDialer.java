package beam.link.member;

import beam.auth.TokenAuth;
import beam.codec.Frame;
import beam.codec.FrameCodec;
import beam.codec.FrameException;
import beam.connection.Connection;
import beam.connection.Transport;
import beam.protocol.LinkCodec;
import beam.protocol.LinkMessage;
import beam.protocol.Request.BadRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * A joining node's way onto the head: connect (plain TCP, or mutual TLS), answer the head's
 * challenge with the token, send the {@code join}, read the head's answer. Every failure is an
 * {@link IOException} that says what to check; the whole handshake is bounded by
 * {@link #JOIN_TIMEOUT_MILLIS}.
 */
public final class MemberDialer {
    static final long JOIN_TIMEOUT_MILLIS = 15_000;
    private static final int CONNECT_TIMEOUT_MILLIS = 10_000;

    /**
     * A link the head accepted. {@code plainChannel}: its socket when it is plain TCP (a
     * reader loop can select it), null for TLS.
     */
    public record Joined(Connection connection, SocketChannel plainChannel, LinkMessage.Welcome welcome) {
    }

    private final String address;
    private final SSLContext tls;
    private final String authToken;

    /** {@code tls}: null for plain TCP; {@code authToken}: null when this node has none. */
    public MemberDialer(String headAddress, SSLContext tls, String authToken) {
        this.address = headAddress;
        this.tls = tls;
        this.authToken = authToken;
    }

    /** Joins as {@code join} says (its {@code auth} is filled in here, from the challenge). */
    public Joined join(LinkMessage.Join join, FrameCodec codec) throws IOException {
        int colon = address.lastIndexOf(':');
        InetSocketAddress target = new InetSocketAddress(address.substring(0, colon),
                Integer.parseInt(address.substring(colon + 1)));
        SocketChannel plain = null;
        Connection head;
        if (tls == null) {
            plain = connectPlain(target);
            // Non-blocking like the unix socket's channels: what this node sends the head is
            // written by the thread that sends it when the link is free, not handed to a writer
            // thread (Connection's class doc); its writer for the backlog is a platform thread.
            head = new Connection(Transport.nonBlocking(plain), codec, "head " + address, Thread.ofPlatform().daemon());
        } else {
            head = new Connection(Transport.of(connectTls(target)), codec, "head " + address);
        }
        var deadline = head.closeUnlessCancelled(JOIN_TIMEOUT_MILLIS);
        try {
            return new Joined(head, plain, handshake(head, join));
        } catch (IOException e) {
            head.close();
            throw e;
        } finally {
            deadline.cancel();
        }
    }

    private LinkMessage.Welcome handshake(Connection head, LinkMessage.Join join) throws IOException {
        LinkMessage.Challenge challenge;
        try {
            challenge = LinkCodec.challenge(readOrFail(head, "the head's challenge"));
        } catch (BadRequest e) {
            throw new IOException("the head at " + address + " did not send a challenge; is it a beam head? ("
                    + e.getMessage() + ")");
        }
        String answer = null;
        if (challenge.tokenRequired()) {
            if (authToken == null) {
                throw new IOException("the head requires its cluster token: set RAY_AUTH_TOKEN=<token>, "
                        + "RAY_AUTH_TOKEN_PATH=<file> or --auth-token-path <file> (the head keeps it in "
                        + "<temp-dir>/session_latest/" + TokenAuth.TOKEN_FILE + ")");
            }
            answer = new TokenAuth(authToken).answer(challenge.nonce());
        }
        head.send(LinkCodec.encode(new LinkMessage.Join(join.rid(), join.proto(), answer, join.nodeId(), join.nodeIp(),
                join.hostname(), join.sessionDir(), join.resources(), join.badResources(), join.accelerators(), join.labels(),
                join.facts())));
        try {
            return switch (LinkCodec.joinAnswer(readOrFail(head, "the head's answer to join"))) {
                case LinkMessage.Welcome w -> w;
                case LinkMessage.Refused r -> throw new IOException("the head refused to let this node join: "
                        + r.message());
            };
        } catch (BadRequest e) {
            throw new IOException("the head at " + address + " answered the join with something else: " + e.getMessage());
        }
    }

    private Frame readOrFail(Connection head, String what) throws IOException {
        try {
            Frame f = head.read();
            if (f == null) {
                throw new IOException("the head closed the connection before " + what
                        + (tls == null ? " (if the head uses TLS, start this node with --tls-cert, --tls-key and "
                        + "--tls-ca as well)" : ""));
            }
            return f;
        } catch (FrameException e) {
            throw new IOException("bad frame from the head while waiting for " + what + ": " + e.getMessage());
        }
    }

    private SocketChannel connectPlain(InetSocketAddress target) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.INET);
        try {
            channel.connect(target);
        } catch (IOException e) {
            channel.close();
            throw unreachable(e);
        }
        channel.socket().setTcpNoDelay(true);
        return channel;
    }

    private SSLSocket connectTls(InetSocketAddress target) throws IOException {
        SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket();
        try {
            socket.connect(target, CONNECT_TIMEOUT_MILLIS);
        } catch (IOException e) {
            socket.close();
            throw unreachable(e);
        }
        socket.setTcpNoDelay(true);
        try {
            socket.startHandshake();
        } catch (IOException e) {
            socket.close();
            throw new IOException("TLS handshake with the head at " + address + " failed: " + e.getMessage()
                    + ". Both ends need certificates signed by the same CA (--tls-cert, --tls-key, --tls-ca), and the "
                    + "head must be started with TLS too.");
        }
        return socket;
    }

    private IOException unreachable(IOException e) {
        return new IOException("cannot reach the head at " + address + ": " + e.getMessage()
                + ". Check the address, that `ray start --head` runs there, and that the port is open.");
    }
}
