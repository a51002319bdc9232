package beam.link.head;

import static org.assertj.core.api.Assertions.assertThat;

import beam.codec.FrameCodec;
import beam.codec.FrameLimits;
import beam.connection.Connection;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Strangers at the head's door are bounded per source and in total; the oldest go first. */
class StrangersTest {
    private static Connection connection() throws IOException {
        return new Connection(SocketChannel.open(StandardProtocolFamily.INET), new FrameCodec(FrameLimits.DEFAULT), "t");
    }

    @Test
    void theOldestOfASourceIsCutOffAndOtherSourcesAreNotTouched() throws IOException {
        Strangers strangers = new Strangers(100, 3);
        Connection other = connection();
        strangers.admit(other, "/10.0.0.9");
        List<Connection> flood = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Connection c = connection();
            flood.add(c);
            strangers.admit(c, "/10.0.0.1");
        }
        assertThat(flood.subList(0, 7)).noneMatch(Connection::isOpen);
        assertThat(flood.subList(7, 10)).allMatch(Connection::isOpen);
        assertThat(other.isOpen()).isTrue();
        assertThat(strangers.size()).isEqualTo(4);
        flood.forEach(strangers::leave);
        strangers.leave(other);
        assertThat(strangers.size()).isZero();
    }

    @Test
    void overTheTotalTheOldestOfAllGoesAndTheNewestStays() throws IOException {
        Strangers strangers = new Strangers(5, 64);
        List<Connection> all = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Connection c = connection();
            all.add(c);
            strangers.admit(c, "/10.0.0." + i);
        }
        assertThat(all.subList(0, 3)).noneMatch(Connection::isOpen);
        assertThat(all.subList(3, 8)).allMatch(Connection::isOpen);
        all.forEach(Connection::close);
    }

    @Test
    void theSourceIsTheAddressWithoutThePort() {
        assertThat(Strangers.sourceOf("/127.0.0.2:43210")).isEqualTo("/127.0.0.2");
        assertThat(Strangers.sourceOf("/0:0:0:0:0:0:0:1:43210")).isEqualTo("/0:0:0:0:0:0:0:1");
    }
}
