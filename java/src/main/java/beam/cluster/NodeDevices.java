package beam.cluster;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The device slots of every accelerator resource a node (or a placed bundle) holds, keyed by
 * resource name. An allocation takes from each resource the request names, all or nothing;
 * resources without ids here (CPU, memory, custom ones) are counted by {@link Resources} alone.
 */
final class NodeDevices {
    /** What one allocation took: resource to device id to units. */
    static final Map<String, Map<String, Long>> NONE = Map.of();

    private final Map<String, DeviceSlots> slots = new LinkedHashMap<>();

    static NodeDevices whole(Map<String, NodeAccelerator> accelerators) {
        NodeDevices d = new NodeDevices();
        accelerators.forEach((r, a) -> d.slots.put(r, DeviceSlots.whole(a.ids())));
        return d;
    }

    /** Slots of exactly what {@code taken} holds: a bundle owns what it took from its node. */
    static NodeDevices of(Map<String, Map<String, Long>> taken) {
        NodeDevices d = new NodeDevices();
        taken.forEach((r, ids) -> d.slots.put(r, DeviceSlots.of(ids)));
        return d;
    }

    NodeDevices copy() {
        NodeDevices d = new NodeDevices();
        slots.forEach((r, s) -> d.slots.put(r, DeviceSlots.of(s.snapshot())));
        return d;
    }

    /** Takes device ids for every accelerator resource in {@code request}; null if one does not fit. */
    Map<String, Map<String, Long>> allocate(Resources request) {
        Map<String, Map<String, Long>> taken = new LinkedHashMap<>();
        for (Map.Entry<String, DeviceSlots> e : slots.entrySet()) {
            long units = request.get(e.getKey());
            if (units <= 0) continue;
            Map<String, Long> got = e.getValue().allocate(units);
            if (got == null) {
                release(taken);
                return null;
            }
            taken.put(e.getKey(), got);
        }
        return taken;
    }

    void release(Map<String, Map<String, Long>> taken) {
        taken.forEach((r, ids) -> {
            DeviceSlots s = slots.get(r);
            if (s != null) s.release(ids);
        });
    }

    /** Whether {@code request} could ever fit devices of these capacities (all free). */
    static boolean couldFit(Map<String, NodeAccelerator> accelerators, Resources request) {
        for (Map.Entry<String, NodeAccelerator> e : accelerators.entrySet()) {
            Map<String, Long> caps = new LinkedHashMap<>();
            for (String id : e.getValue().ids()) caps.put(id, Resources.UNIT);
            if (!DeviceSlots.couldFit(caps, request.get(e.getKey()))) return false;
        }
        return true;
    }

    /** The ids an allocation took, per resource, in the order taken. */
    static Map<String, List<String>> ids(Map<String, Map<String, Long>> taken) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        taken.forEach((r, ids) -> out.put(r, List.copyOf(new ArrayList<>(ids.keySet()))));
        return out;
    }
}
