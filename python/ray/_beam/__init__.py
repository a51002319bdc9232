"""beam's Python side, in layers; each folder is one layer.

- ``wire/``: the frames on the unix or TCP socket and the one connection to a daemon
  (framing, framebuffer, outbox, spin, connection) and the table that turns the daemon's
  error names into exceptions (errors). It knows nothing of Ray's API.
- ``launch/``: finding or starting a daemon: Java and the jar (launcher, jvmflags, aotcache,
  launchfile), temp-dir and daemon discovery (tempdirs, discovery) and the check that beam
  and Ray are not mixed in one environment (coexist). The ``ray`` command imports only this.
- ``api/``: what ``ray.*`` is made of: the process's client (client), objects and refs,
  submitting calls, actors, placement groups, state, runtime context, user metrics, and the
  pickling of user data (the daemon never unpickles it).
- ``worker.py`` and the ``worker_*.py`` beside it (start, process, calls, the async loop):
  the actor worker process (``python -m ray._beam.worker``, started by the daemon), on top
  of the API.

The rule (tests/unit/test_layers.py checks it, and that no import cycle exists):
``wire`` and ``launch`` import neither each other nor ``api`` (``wire`` may use
``ray.exceptions``, a leaf; ``launch`` may use ``ray._version``, beam's versions); ``api`` uses both; only ``worker`` uses the API and the wire
from above. ``ray/__init__.py`` and ``ray.util`` expose ``api``'s names lazily.
"""
