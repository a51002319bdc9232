package beam.cluster;

import beam.codec.Frame;
import beam.dispatch.FramedClient;
import beam.util.ProcessContext;
import beam.util.NodeQuestion;
import java.util.ArrayList;
import java.util.List;

/** Test doubles: a node link that records starts and kills, and a client that records pushes. */
final class FakeNodes {
    private FakeNodes() {
    }

    static final class Link implements NodeControl {
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

    static final class RecordingClient implements FramedClient {
        final List<Frame> pushed = new ArrayList<>();

        @Override
        public synchronized void push(Frame frame) {
            pushed.add(frame);
        }

        synchronized List<String> ops() {
            return pushed.stream().map(Frame::op).toList();
        }

        synchronized List<Frame> frames(String op) {
            return pushed.stream().filter(f -> f.op().equals(op)).toList();
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

    static Node node(String ip, int gpus, int cpus, Link link, boolean head) {
        Resources r = new Resources().set("GPU", gpus * Resources.UNIT).set("CPU", cpus * Resources.UNIT)
                .set("node:" + ip, Resources.UNIT);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < gpus; i++) ids.add(String.valueOf(i));
        java.util.Map<String, NodeAccelerator> accel = gpus == 0 ? java.util.Map.of()
                : java.util.Map.of("GPU", new NodeAccelerator(AcceleratorKind.NVIDIA_GPU, ids, null, NodeAccelerator.DECLARED));
        return new Node(beam.util.Ids.nodeId(), ip, ip, head, r, accel, link);
    }
}
