package beam.cluster;

import beam.util.HostFacts;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One node's devices of one accelerator resource: which kind they are, their ids as the
 * node names them (the entries of a visibility variable set on `ray start`, else 0..n-1),
 * the model where detection saw it (e.g. "H200"; null when declared or unknown), and where
 * the count came from: {@link #DECLARED} on `ray start`, the {@link #VISIBLE} variable, or
 * {@link #DETECTED} devices.
 */
public record NodeAccelerator(AcceleratorKind kind, List<String> ids, String type, String source) {
    public static final String DECLARED = "declared";
    public static final String VISIBLE = "visible";
    public static final String DETECTED = "detected";

    public NodeAccelerator {
        ids = List.copyOf(ids);
    }

    /** This resource's devices as a node describes them (on the wire and in views: {@code protocol/FactsCodec}). */
    public HostFacts.Accelerator describe(String nodeVisibleValue) {
        return new HostFacts.Accelerator(kind.name(), kind.vendor, type, kind.visibleVar, source, ids, nodeVisibleValue);
    }

    /** Each resource's devices as described, without the node's visibility value (a join, a node row). */
    public static Map<String, HostFacts.Accelerator> describeAll(Map<String, NodeAccelerator> byResource) {
        Map<String, HostFacts.Accelerator> out = new LinkedHashMap<>();
        byResource.forEach((r, a) -> out.put(r, a.describe(null)));
        return out;
    }

    /**
     * The devices a joining node described, keyed by resource (null: it sent no object);
     * refuses a kind beam does not know or one filed under another kind's resource.
     */
    public static Map<String, NodeAccelerator> of(Map<String, HostFacts.Accelerator> described) {
        if (described == null) throw new IllegalArgumentException("accelerators must be an object of resource to devices");
        Map<String, NodeAccelerator> out = new LinkedHashMap<>();
        described.forEach((resource, a) -> {
            AcceleratorKind kind;
            try {
                kind = AcceleratorKind.valueOf(a.kind() == null ? "" : a.kind());
            } catch (IllegalArgumentException bad) {
                throw new IllegalArgumentException("accelerators['" + resource + "']: unknown kind '" + a.kind() + "'");
            }
            if (!kind.resource.equals(resource)) {
                throw new IllegalArgumentException("accelerators['" + resource + "']: kind " + kind + " counts in " + kind.resource);
            }
            out.put(resource, new NodeAccelerator(kind, a.ids(), a.type(), a.source() != null ? a.source() : DECLARED));
        });
        return out;
    }

    /** Only the GPU ids of a node: what `GpuIds` and the older views show. */
    public static List<String> gpuIds(Map<String, NodeAccelerator> byResource) {
        NodeAccelerator gpu = byResource.get("GPU");
        return gpu == null ? List.of() : gpu.ids;
    }
}
