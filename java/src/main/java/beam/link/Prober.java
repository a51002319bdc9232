package beam.link;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
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

    /** Connects to each {@code {node_id, ip, port}} target concurrently; one result each. */
    public static CompletableFuture<JsonNode> probe(JsonNode targets) {
        List<CompletableFuture<ObjectNode>> each = new ArrayList<>();
        for (JsonNode t : targets) {
            each.add(CompletableFuture.supplyAsync(() -> probeOne(t), r -> Thread.ofVirtual().start(r)));
        }
        return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new)).thenApply(v -> {
            ArrayNode out = JsonNodeFactory.instance.arrayNode();
            each.forEach(f -> out.add(f.join()));
            return out;
        });
    }

    private static ObjectNode probeOne(JsonNode target) {
        ObjectNode r = JsonNodeFactory.instance.objectNode();
        r.put("node_id", target.path("node_id").asText());
        String ip = target.path("ip").asText();
        int port = target.path("port").asInt(-1);
        r.put("address", ip + ":" + port);
        long t0 = System.nanoTime();
        if (port <= 0) {
            r.put("ok", false);
            r.put("error", "the node has no probe port (its node IP could not be bound)");
            return r;
        }
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(ip, port), CONNECT_TIMEOUT_MILLIS);
            r.put("ok", true);
            r.put("ms", Math.round((System.nanoTime() - t0) / 1e4) / 100.0);
        } catch (IOException e) {
            r.put("ok", false);
            r.put("error", e.getMessage());
        }
        return r;
    }
}
