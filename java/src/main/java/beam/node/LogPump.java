package beam.node;

import beam.cluster.SpawnSpec;
import beam.codec.Frame;
import beam.protocol.Frames;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Copies one output stream of an actor process, line by line, to its log file and (as
 * {@code log} frames, a batch of the lines available at once) to the actor's owner, and
 * remembers the last lines for the death message. One platform thread per stream: a read
 * from a pipe blocks in the kernel, and on a virtual thread it would hold one of the
 * scheduler's carrier threads (as many as cores) for as long as the actor is quiet, so that
 * with as many streams as cores every other virtual thread of the daemon (a node declared
 * lost, a slow request) would wait for an actor to print something.
 */
final class LogPump {
    static final int TAIL_LINES = 20;
    private static final int MAX_BATCH = 200;
    /** A pump's stack: a read loop a few frames deep (the JVM's default would reserve 1 MiB of address space each). */
    static final long STACK_BYTES = 256 * 1024;

    private final ArrayDeque<String> tail = new ArrayDeque<>();
    private final CountDownLatch drained = new CountDownLatch(1);

    static LogPump start(InputStream in, Path file, String stream, SpawnSpec actor, long pid, ActorEvents events) {
        LogPump pump = new LogPump();
        Thread.ofPlatform().daemon().stackSize(STACK_BYTES).name("log " + stream + " " + actor.actorId())
                .start(() -> pump.run(in, file, stream, actor, pid, events));
        return pump;
    }

    private void run(InputStream in, Path file, String stream, SpawnSpec actor, long pid, ActorEvents events) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
             OutputStream out = Files.newOutputStream(file)) {
            String line;
            List<String> batch = new ArrayList<>();
            while ((line = reader.readLine()) != null) {
                batch.add(line);
                while (batch.size() < MAX_BATCH && reader.ready() && (line = reader.readLine()) != null) batch.add(line);
                String text = String.join("\n", batch) + "\n";
                out.write(text.getBytes(StandardCharsets.UTF_8));
                out.flush();
                remember(batch);
                if (actor.logToOwner()) events.log(actor.actorId(), frame(actor, pid, stream, text));
                batch.clear();
            }
        } catch (IOException e) {
            NodeAgent.log().fine(() -> "log pump " + stream + " of " + actor.actorId() + " ended: " + e.getMessage());
        } finally {
            drained.countDown();
        }
    }

    private static Frame frame(SpawnSpec actor, long pid, String stream, String text) {
        ObjectNode h = Frames.header("log");
        h.put("actor_id", actor.actorId());
        h.put("class_name", actor.className());
        h.put("pid", pid);
        h.put("stream", stream);
        return new Frame(h, text.getBytes(StandardCharsets.UTF_8));
    }

    private synchronized void remember(List<String> lines) {
        for (String l : lines) {
            tail.addLast(l);
            if (tail.size() > TAIL_LINES) tail.removeFirst();
        }
    }

    synchronized List<String> tail() {
        return new ArrayList<>(tail);
    }

    /** Waits up to {@code millis} for the stream to reach its end (children may hold it open). */
    void awaitDrained(long millis) {
        try {
            drained.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
