package beam.cluster;

import beam.util.ProcessContext;
import beam.util.NodeQuestion;
import java.util.ArrayList;
import java.util.List;

/**
 * Test doubles: a node link that records starts and kills, and a client that records what it is
 * told. Public for the views tests, which read a cluster built from them.
 */
public final class FakeNodes {
    private FakeNodes() {
    }

    public static final class Link implements NodeControl {
        final List<ActorRecord> started = new ArrayList<>();
        final List<ActorRecord> killed = new ArrayList<>();

        @Override
        public void startActor(ActorRecord actor, java.util.Map<String, List<String>> deviceIds) {
            started.add(actor);
        }

        @Override
        public void killActor(ActorRecord actor) {
            killed.add(actor);
        }

        final List<NodeQuestion<?>> asked = new ArrayList<>();

        @Override
        public <A extends NodeQuestion.Answer> java.util.concurrent.CompletableFuture<A> ask(NodeQuestion<A> question) {
            asked.add(question);
            return java.util.concurrent.CompletableFuture.failedFuture(new IllegalStateException("a fake node answers nothing"));
        }
    }

    /**
     * A message a test hands the domain to forward (a call, a result); {@code oid} lets a test
     * tell which one arrived, though the domain never reads it.
     */
    public record Message(String oid) implements Forwarded {
    }

    /** A client that records every event the domain tells it, in order. */
    public static final class RecordingClient implements Client {
        private final List<ClientEvent> events = new ArrayList<>();

        private synchronized void record(ClientEvent event) {
            events.add(event);
        }

        synchronized List<ClientEvent> events() {
            return List.copyOf(events);
        }

        /** The events of one kind, in order. */
        synchronized <E extends ClientEvent> List<E> events(Class<E> kind) {
            return events.stream().filter(kind::isInstance).map(kind::cast).toList();
        }

        /** Every answer to a call this client made, in order: a forwarded result or a failure (each a result frame on the wire). */
        synchronized List<ClientEvent> answers() {
            return events.stream().filter(e -> e instanceof ClientEvent.CallResult || e instanceof ClientEvent.Failure).toList();
        }

        /** The oids of the forwarded results this client got, in order. */
        List<String> resultOids() {
            return events(ClientEvent.CallResult.class).stream().map(r -> ((FakeNodes.Message) r.result()).oid()).toList();
        }

        @Override
        public void runCall(String oid, String method, Forwarded call) {
            record(new ClientEvent.RunCall(oid, method, call));
        }

        @Override
        public void callResult(Forwarded result) {
            record(new ClientEvent.CallResult(result));
        }

        @Override
        public void actorDied(String oid, String deathMessage) {
            record(new ClientEvent.ActorDied(oid, deathMessage));
        }

        @Override
        public void actorUnschedulable(String oid, String reason) {
            record(new ClientEvent.ActorUnschedulable(oid, reason));
        }

        @Override
        public void noSuchActor(String oid, String message) {
            record(new ClientEvent.NoSuchActor(oid, message));
        }

        @Override
        public void actorLog(Forwarded log) {
            record(new ClientEvent.ActorLog(log));
        }

        @Override
        public void warning(String message) {
            record(new ClientEvent.Warning(message));
        }

        @Override
        public void groupReady(String groupId) {
            record(new ClientEvent.GroupReady(groupId));
        }

        @Override
        public void groupRemoved(String groupId) {
            record(new ClientEvent.GroupRemoved(groupId));
        }

        @Override
        public void groupWaiting(String groupId, String message) {
            record(new ClientEvent.GroupWaiting(groupId, message));
        }

        @Override
        public String jobId() {
            return "01000000";
        }

        @Override
        public String namespace() {
            return "ns";
        }

        @Override
        public boolean logToDriver() {
            return true;
        }

        @Override
        public String describe() {
            return "test driver";
        }

        @Override
        public ProcessContext processContext() {
            return new ProcessContext(null, null, List.of());
        }
    }

    public static Node node(String ip, int gpus, int cpus, Link link, boolean head) {
        Resources r = new Resources().set("GPU", gpus * Resources.UNIT).set("CPU", cpus * Resources.UNIT)
                .set("node:" + ip, Resources.UNIT);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < gpus; i++) ids.add(String.valueOf(i));
        java.util.Map<String, NodeAccelerator> accel = gpus == 0 ? java.util.Map.of()
                : java.util.Map.of("GPU", new NodeAccelerator(AcceleratorKind.NVIDIA_GPU, ids, null, NodeAccelerator.DECLARED));
        return new Node(beam.util.Ids.nodeId(), ip, ip, head, r, accel, link);
    }
}
