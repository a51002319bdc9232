package beam.cluster;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Concrete device ids of one accelerator resource and how much of each is free, in
 * resource units (1 device = 10,000). A request of whole devices takes that many entirely free devices; a fractional request
 * (below 1) takes part of one device, preferring one already shared so that two 0.5
 * requests land on the same id, as in Ray.
 */
public final class DeviceSlots {
    private final LinkedHashMap<String, Long> free = new LinkedHashMap<>();

    public DeviceSlots() {
    }

    public static DeviceSlots of(Map<String, Long> capacities) {
        DeviceSlots s = new DeviceSlots();
        s.free.putAll(capacities);
        return s;
    }

    public static DeviceSlots whole(List<String> ids) {
        DeviceSlots s = new DeviceSlots();
        for (String id : ids) s.free.put(id, Resources.UNIT);
        return s;
    }

    /** Takes {@code units} of the resource; returns device id to units taken, or null if it does not fit. */
    public Map<String, Long> allocate(long units) {
        Map<String, Long> taken = new LinkedHashMap<>();
        if (units <= 0) return taken;
        if (units >= Resources.UNIT) {
            if (units % Resources.UNIT != 0) return null; // Ray: amounts above 1 must be whole
            long count = units / Resources.UNIT;
            for (Map.Entry<String, Long> e : free.entrySet()) {
                if (taken.size() == count) break;
                if (e.getValue() == Resources.UNIT) taken.put(e.getKey(), Resources.UNIT);
            }
            if (taken.size() < count) return null;
        } else {
            String best = null;
            for (Map.Entry<String, Long> e : free.entrySet()) {
                long f = e.getValue();
                if (f >= units && (best == null || f < free.get(best))) best = e.getKey();
            }
            if (best == null) return null;
            taken.put(best, units);
        }
        taken.forEach((id, u) -> free.merge(id, -u, Long::sum));
        return taken;
    }

    public void release(Map<String, Long> taken) {
        taken.forEach((id, u) -> free.merge(id, u, Long::sum));
    }

    /** Free units per device id (a copy). */
    public Map<String, Long> snapshot() {
        return new LinkedHashMap<>(free);
    }

    /** Whether a request of {@code units} could ever fit into devices of these capacities. */
    public static boolean couldFit(Map<String, Long> capacities, long units) {
        if (units <= 0) return true;
        if (units >= Resources.UNIT) {
            if (units % Resources.UNIT != 0) return false;
            long whole = capacities.values().stream().filter(c -> c >= Resources.UNIT).count();
            return whole >= units / Resources.UNIT;
        }
        return capacities.values().stream().anyMatch(c -> c >= units);
    }
}
