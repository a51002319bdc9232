package beam.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SessionDirTest {
    @TempDir
    Path root;

    /** A temp dir whose socket path can be {@code socketBytes} long (with a pid of the widest kind). */
    private Path tempDirGiving(int socketBytes) {
        int rest = ("/session_" + "2026-11-30_01-03-19_122322" + "_" + "9".repeat(SessionDir.PID_DIGITS)
                + "/sockets/beamd.sock").length();
        int pad = socketBytes - rest - root.toString().length() - 1;
        return root.resolve("t".repeat(pad));
    }

    @Test
    void aTempDirTooLongForTheSocketIsRefusedBeforeAnythingIsCreated() {
        Path temp = tempDirGiving(SessionDir.MAX_SOCKET_PATH_BYTES + 1);
        assertThatThrownBy(() -> SessionDir.create(temp))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the temp dir " + temp + " is too long")
                .hasMessageContaining("can be " + (SessionDir.MAX_SOCKET_PATH_BYTES + 1) + " bytes long")
                .hasMessageContaining("at most " + (temp.toString().length() - 1) + " bytes");
        assertThat(Files.exists(temp)).isFalse();
    }

    @Test
    void theLongestTempDirAllowedGivesASocketThatBinds() throws Exception {
        Path temp = tempDirGiving(SessionDir.MAX_SOCKET_PATH_BYTES);
        SessionDir session = SessionDir.create(temp);
        int pidDigits = String.valueOf(ProcessHandle.current().pid()).length();
        assertThat(session.socketPath().toString())
                .hasSize(SessionDir.MAX_SOCKET_PATH_BYTES - (SessionDir.PID_DIGITS - pidDigits));
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(session.socketPath()));
        }
    }
}
