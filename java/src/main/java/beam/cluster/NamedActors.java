package beam.cluster;

import java.util.HashMap;
import java.util.Map;

/**
 * The live named actors, by namespace and name. Guarded by the {@link Cluster} lock, so that
 * "is the name free, then take it" is one step: get-or-create ({@code get_if_exists=True})
 * from many threads or drivers at once yields one actor, never "already taken".
 */
final class NamedActors {
    private final Map<String, ActorRecord> byKey = new HashMap<>();

    /**
     * The actor already holding {@code name}, when {@code getIfExists} asks for it, or null
     * when the name is free (the caller then creates and {@link #put}s it).
     */
    ActorRecord claim(String name, String namespace, boolean getIfExists) throws RequestException {
        if (name == null) return null;
        ActorRecord existing = byKey.get(namespace + "/" + name);
        if (existing == null || getIfExists) return existing;
        throw RequestException.value("The name " + name + " (namespace=" + namespace
                + ") is already taken. Please use a different name or get the existing actor using "
                + "ray.get_actor('" + name + "', namespace='" + namespace + "')");
    }

    void put(ActorRecord actor) {
        if (actor.name != null) byKey.put(actor.namespace + "/" + actor.name, actor);
    }

    /** Frees the actor's name (it died), unless another actor holds it by now. */
    void remove(ActorRecord actor) {
        if (actor.name != null) byKey.remove(actor.namespace + "/" + actor.name, actor);
    }

    ActorRecord byName(String name, String namespace) throws RequestException {
        ActorRecord actor = byKey.get(namespace + "/" + name);
        if (actor == null) {
            throw RequestException.value("Failed to look up actor with name '" + name + "'. This could because 1. You "
                    + "are trying to look up a named actor you didn't create. 2. The named actor died. 3. You did not use "
                    + "a namespace matching the namespace of the actor.");
        }
        return actor;
    }
}
