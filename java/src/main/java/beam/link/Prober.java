package beam.link;

import beam.util.NodeQuestion;
import beam.util.NodeQuestion.ProbeResult;
import beam.util.NodeQuestion.ProbeResults;
import beam.util.NodeQuestion.ProbeTarget;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * TCP reachability between nodes, for `ray doctor`: each node listens on a probe port on
 * its node IP (accept, close), and on request connects to every other node's probe port,
 * the way NCCL and Gloo will connect between the same IPs.
 */
public final class Prober {
    static final int CONNECT_TIMEOUT_MILLIS = 2_000;

    private Prober() {
    }

    /** Listens on {@code ip}:0 and closes every connection at once; returns the socket. */
    public static ServerSocket listen(String ip) throws IOException {
        ServerSocket server = new ServerSocket();
        server.bind(new InetSocketAddress(ip, 0));
        Thread.ofPlatform().daemon().name("probe listener").start(() -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    s.getOutputStream().write('b');
                } catch (IOException ignored) {
                    // closed, or a prober that went away
                }
            }
        });
        return server;
    }

    /** Connects to each target concurrently; one result each, in the order asked. */
    public static CompletableFuture<ProbeResults> probe(NodeQuestion.Probe probe) {
        List<CompletableFuture<ProbeResult>> each = new ArrayList<>();
        for (ProbeTarget t : probe.targets()) {
            each.add(CompletableFuture.supplyAsync(() -> probeOne(t), r -> Thread.ofVirtual().start(r)));
        }
        return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
                .thenApply(v -> new ProbeResults(each.stream().map(CompletableFuture::join).toList()));
    }

    private static ProbeResult probeOne(ProbeTarget target) {
        String address = target.ip() + ":" + target.port();
        long t0 = System.nanoTime();
        if (target.port() <= 0) {
            return new ProbeResult(target.nodeId(), address, false, null,
                    "the node has no probe port (its node IP could not be bound)");
        }
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(target.ip(), target.port()), CONNECT_TIMEOUT_MILLIS);
            return new ProbeResult(target.nodeId(), address, true, Math.round((System.nanoTime() - t0) / 1e4) / 100.0, null);
        } catch (IOException e) {
            return new ProbeResult(target.nodeId(), address, false, null, e.getMessage() != null ? e.getMessage() : e.toString());
        }
    }
}
