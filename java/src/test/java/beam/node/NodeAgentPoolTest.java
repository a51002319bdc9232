package beam.node;

import beam.cluster.SpawnSpec;
import static org.assertj.core.api.Assertions.assertThat;

import beam.util.ProcessContext;
import beam.codec.Frame;
import beam.util.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a node agent refills its pool of idle workers. The "Python" here is a script that
 * sleeps, so that what is tested is the agent's rule, with real child processes, and not
 * the worker (tests/e2e/test_worker_pool.py runs the real one).
 */
class NodeAgentPoolTest {
    @TempDir
    Path dir;

    private final Set<String> exited = ConcurrentHashMap.newKeySet();
    private NodeAgent agent;

    private final ActorEvents events = new ActorEvents() {
        @Override
        public void started(String actorId, long pid) {
        }

        @Override
        public void startFailed(String actorId, String detail) {
        }

        @Override
        public void exited(String actorId, int exitCode, List<String> stderrTail, long oomKills) {
            exited.add(actorId);
        }

        @Override
        public void log(String actorId, Frame logFrame) {
        }
    };

    private String sleepingPython() throws Exception {
        Path script = dir.resolve("python3");
        Files.writeString(script, "#!/bin/sh\nexec sleep 300\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script.toString();
    }

    /** An agent whose refill after a start comes only after {@code quietMs}. */
    private NodeAgent agent(String python, long quietMs) throws Exception {
        Path socket = Files.createDirectories(dir.resolve("tmp/session/sockets")).resolve("beam.sock");
        Path logs = Files.createDirectories(dir.resolve("logs"));
        agent = new NodeAgent(events, socket, logs, Map.of(), new ProcessCap(8, "test"), python, 2, quietMs);
        return agent;
    }

    private static SpawnSpec actor(String id, String python) {
        return new SpawnSpec(id, "A", Map.of(), Map.of(), new ProcessContext(python, null, null), false, 1);
    }

    @AfterEach
    void stop() {
        if (agent != null) agent.killAll();
    }

    @Test
    void actorsThatEndAreReplacedInThePoolAtOnce() throws Exception {
        String python = sleepingPython();
        NodeAgent agent = agent(python, 600_000); // the refill after a start would come only after 10 minutes
        agent.warmPool();
        Await.until(() -> agent.idleCount() == 2, "the pool filled");
        agent.spawn(actor("a1", python));
        agent.spawn(actor("a2", python));
        Await.until(() -> agent.runningCount() == 2, "both actors running");
        assertThat(agent.idleCount()).as("both took a pooled worker").isZero();
        Thread.sleep(300);
        assertThat(agent.idleCount()).as("no refill while the actors run and have just started").isZero();

        agent.kill("a1");
        Await.until(() -> exited.contains("a1"), "a1 gone");
        Await.until(() -> agent.idleCount() == 2, "a1's end refilled the pool");
    }

    @Test
    void aStoppedAgentStartsNoPoolWhenItsActorsEnd() throws Exception {
        String python = sleepingPython();
        NodeAgent agent = agent(python, 600_000);
        agent.spawn(actor("a1", python));
        Await.until(() -> agent.runningCount() == 1, "the actor running");
        agent.killAll();
        Await.until(() -> exited.contains("a1"), "a1 gone");
        Thread.sleep(300);
        assertThat(agent.idleCount()).as("idle workers started after shutdown").isZero();
    }
}
