package beam.cluster;

import java.util.Map;

/**
 * One bundle of a placement group once placed: the resources it reserved on its node, what
 * of them actors inside it have not yet taken, and the concrete device ids it owns.
 */
final class Bundle {
    final int index;
    final Resources spec;
    /** Ray's bundle_label_selector entry: the labels its node must have ({@link LabelSelector#NONE}: any). */
    final LabelSelector selector;
    Node node;
    Resources available;
    NodeDevices devices;
    Map<String, Map<String, Long>> devicesTakenFromNode;
    /** Live actors placed in it (each holds 0.001 of Ray's bundle_group_ resources). */
    int actors;

    Bundle(int index, Resources spec, LabelSelector selector) {
        this.index = index;
        this.spec = spec;
        this.selector = selector;
    }

    boolean placed() {
        return node != null;
    }
}
