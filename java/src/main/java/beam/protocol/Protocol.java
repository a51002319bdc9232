package beam.protocol;

/** The version of the wire protocol (docs/PROTOCOL.md), checked by a client's {@code hello} and a node's {@code join}. */
public final class Protocol {
    public static final int VERSION = 1;

    private Protocol() {
    }
}
