package beam.cluster;

import java.util.Map;

/**
 * One bundle of a placement group once placed: the resources it reserved on its node, what
 * of them actors inside it have not yet taken, and the concrete GPU ids it owns.
 */
final class Bundle {
    final int index;
    final Resources spec;
    Node node;
    Resources available;
    GpuSlots gpus;
    Map<String, Long> gpusTakenFromNode;

    Bundle(int index, Resources spec) {
        this.index = index;
        this.spec = spec;
    }

    boolean placed() {
        return node != null;
    }
}
