package beam.dispatch;

import beam.views.Stacks;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The drivers connected to the head, local or relayed from a joined node, with the pid each
 * said hello with: the only driver pids {@code ray stack} ever signals. Sessions add on hello
 * and remove on close, from their own threads; the map is concurrent.
 */
public final class ConnectedDrivers {
    private final Map<Session, Stacks.Driver> drivers = new ConcurrentHashMap<>();

    void add(Session session, Stacks.Driver driver) {
        drivers.put(session, driver);
    }

    void remove(Session session) {
        drivers.remove(session);
    }

    public List<Stacks.Driver> list() {
        return List.copyOf(drivers.values());
    }
}
