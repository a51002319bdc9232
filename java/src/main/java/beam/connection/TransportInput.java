package beam.connection;

import java.io.IOException;
import java.io.InputStream;

/** A blocking InputStream over a transport, unbuffered: each read asks the transport. */
final class TransportInput extends InputStream {
    private final Transport transport;

    TransportInput(Transport transport) {
        this.transport = transport;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        return len == 0 ? 0 : transport.read(b, off, len);
    }
}
