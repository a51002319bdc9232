package beam.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import beam.util.DeviceTelemetry.Device;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each vendor tool's parser on output recorded in the shape its documentation and real hosts print. */
class TelemetryParsersTest {
    @Test
    void nvidiaSmiCsvGivesEachDeviceInMiBAndAnUnsupportedUtilizationAsNull() {
        String out = "0, GPU-4f5e1a2b-0c3d-4e5f-8a9b-0123456789ab, NVIDIA H200, 35, 1024, 143771\n"
                + "1, GPU-9a8b7c6d-0000-1111-2222-333344445555, NVIDIA H200, [N/A], 0, 143771\n";
        List<Device> d = TelemetryParsers.csv(out);
        assertThat(d).containsExactly(
                new Device("0", "GPU-4f5e1a2b-0c3d-4e5f-8a9b-0123456789ab", "NVIDIA H200", 35.0, 1024, 143771),
                new Device("1", "GPU-9a8b7c6d-0000-1111-2222-333344445555", "NVIDIA H200", null, 0, 143771));
    }

    @Test
    void hlSmiCsvReadsLikeNvidiaSmis() {
        String out = "0, 01P4-HL3080A0-18-U4V193-22-07-00, HL-325L, 87, 23456, 131072\n";
        assertThat(TelemetryParsers.csv(out))
                .containsExactly(new Device("0", "01P4-HL3080A0-18-U4V193-22-07-00", "HL-325L", 87.0, 23456, 131072));
    }

    @Test
    void csvOfAnotherShapeOrAWordForMemoryIsRefusedNamingTheLine() {
        assertThatThrownBy(() -> TelemetryParsers.csv("GPU 0: NVIDIA H200 (UUID: GPU-aa)\n"))
                .hasMessageContaining("expected 6 comma-separated fields").hasMessageContaining("GPU 0: NVIDIA H200");
        assertThatThrownBy(() -> TelemetryParsers.csv("0, GPU-a, NVIDIA H200, 1, lots, 80\n"))
                .hasMessageContaining("'lots' is not a number");
        assertThat(TelemetryParsers.csv("\n")).isEmpty();
    }

    @Test
    void rocmSmiJsonGivesBytesAsMiBAndSkipsTheSystemEntry() {
        String out = "{\"card0\": {\"GPU use (%)\": \"12\", \"VRAM Total Memory (B)\": \"206141652992\","
                + " \"VRAM Total Used Memory (B)\": \"1073741824\"},"
                + " \"card1\": {\"GPU use (%)\": \"0\", \"VRAM Total Memory (B)\": \"206141652992\","
                + " \"VRAM Total Used Memory (B)\": \"0\"}, \"system\": {\"Driver version\": \"6.8.5\"}}";
        assertThat(TelemetryParsers.rocmSmiJson(out)).containsExactly(
                new Device("0", null, null, 12.0, 1024, 196592), new Device("1", null, null, 0.0, 0, 196592));
        assertThatThrownBy(() -> TelemetryParsers.rocmSmiJson("{\"card0\": {\"GPU use (%)\": \"3\"}}"))
                .hasMessageContaining("card0 has no 'VRAM Total Memory (B)'");
        assertThatThrownBy(() -> TelemetryParsers.rocmSmiJson("ERROR: GPU[0] : Unable to ...")).hasMessageContaining("not JSON");
    }

    @Test
    void npuSmiInfoTakesAicoreAndHbmWhereTheModelHasIt() {
        String out = String.join("\n",
                "+------------------------------------------------------------------------------------------------+",
                "| npu-smi 23.0.rc2                 Version: 23.0.rc2                                             |",
                "+---------------------------+---------------+----------------------------------------------------+",
                "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|",
                "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |",
                "+===========================+===============+====================================================+",
                "| 0     910B3               | OK            | 93.6        40                0    / 0             |",
                "| 0                         | 0000:C1:00.0  | 45          0    / 0          3161 / 65536         |",
                "+===========================+===============+====================================================+",
                "| 1     310P3               | OK            | 12.0        38                0    / 0             |",
                "| 0                         | 0000:C2:00.0  | 0           1200 / 21534                           |",
                "+===========================+===============+====================================================+",
                "| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |",
                "+===========================+===============+====================================================+",
                "| No running processes found in NPU 0                                                            |",
                "+===========================+===============+====================================================+");
        assertThat(TelemetryParsers.npuSmi(out)).containsExactly(
                new Device("0", "0000:C1:00.0", "910B3", 45.0, 3161, 65536),
                new Device("1", "0000:C2:00.0", "310P3", 0.0, 1200, 21534));
        assertThatThrownBy(() -> TelemetryParsers.npuSmi("dcmi module initialize failed. ret is -8005\n"))
                .hasMessageContaining("no device rows");
    }
}
