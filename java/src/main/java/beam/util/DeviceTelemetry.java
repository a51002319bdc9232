package beam.util;

import java.util.List;

/**
 * What a node's vendor tool last said about its accelerators' load: per device its
 * utilization and memory, as the node sampled them ({@code node/AcceleratorTelemetry}), and
 * what went wrong with the latest try, if anything. A node whose tool hangs or fails keeps
 * the devices of its last good sample (with that sample's time) so views can say how old
 * they are. Immutable; a record of util/ because both the link message that carries it
 * (protocol/) and the domain (cluster/) hold it; its JSON (on the wire, and a node row's
 * {@code BeamTelemetry}) is written and read only by {@code protocol/FactsCodec}.
 *
 * @param tool          the vendor tool sampled ({@code nvidia-smi}, {@code rocm-smi}, ...), or null: none runs on this node
 * @param resource      the accelerator resource the devices count in (GPU, NPU, HPU)
 * @param sampledMillis when the devices were sampled (epoch ms), 0 before a first good sample
 * @param devices       the devices of the last good sample
 * @param problem       why the latest sample failed, in words meant for the user, or null
 * @param hung          whether that failure was the tool not answering in time
 */
public record DeviceTelemetry(String tool, String resource, long sampledMillis, List<Device> devices,
                              String problem, boolean hung) {
    /** At most this many devices are kept per node (the largest hosts have 16). */
    public static final int MAX_DEVICES = 64;
    /** Names, ids and problems are cut to this many characters: they ride in a link header. */
    public static final int MAX_TEXT = 200;
    public static final DeviceTelemetry NONE = new DeviceTelemetry(null, null, 0, List.of(), null, false);

    /**
     * One device as its tool reports it.
     *
     * @param index              the device's index as the tool numbers it (the ids a node's accelerators carry)
     * @param utilizationPercent its compute utilization in percent, or null where the tool does not report it
     * @param memoryUsedMiB      device memory in use, MiB
     * @param memoryTotalMiB     device memory in all, MiB
     */
    public record Device(String index, String uuid, String name, Double utilizationPercent,
                         long memoryUsedMiB, long memoryTotalMiB) {
        public Device {
            index = cut(index);
            uuid = cut(uuid);
            name = cut(name);
        }
    }

    public DeviceTelemetry {
        if (devices.size() > MAX_DEVICES) devices = devices.subList(0, MAX_DEVICES);
        devices = List.copyOf(devices);
        problem = cut(problem);
    }

    /** A good sample: these devices, now, no problem. */
    public static DeviceTelemetry sampled(String tool, String resource, long nowMillis, List<Device> devices) {
        return new DeviceTelemetry(tool, resource, nowMillis, devices, null, false);
    }

    /** This sample's devices with a problem of the latest try. */
    public DeviceTelemetry failed(String why, boolean hungNow) {
        return new DeviceTelemetry(tool, resource, sampledMillis, devices, why, hungNow);
    }

    private static String cut(String s) {
        return s == null || s.length() <= MAX_TEXT ? s : s.substring(0, MAX_TEXT);
    }
}
