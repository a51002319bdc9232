"""beam internals: framing, connection, client state, actors, objects and the worker."""
