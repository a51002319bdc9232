"""The event loop of an async actor, started before its constructor: Ray runs an async
actor's ``__init__`` in that loop, so the constructor may ``asyncio.create_task(...)``, and
``exit_actor()`` in such a task ends the actor (atexit handlers run) like one in a method."""

from __future__ import annotations

import threading


def start(on_exit):
    """A new loop running in its own thread; ``on_exit()`` when a task raises SystemExit
    (exit_actor() in a task a method or the constructor spawned escapes the loop). asyncio
    is imported here, not with the worker: a sync actor's start does without it."""
    import asyncio

    loop = asyncio.new_event_loop()

    def run_loop():
        try:
            loop.run_forever()
        except SystemExit:
            on_exit()

    threading.Thread(target=run_loop, name="beam-asyncio", daemon=True).start()
    return loop


def construct(loop, cls, args: tuple, kwargs: dict):
    """``cls(*args, **kwargs)`` run in ``loop``'s thread, with the loop running; raises what it raises."""
    import asyncio

    async def make():
        return cls(*args, **kwargs)

    return asyncio.run_coroutine_threadsafe(make(), loop).result()
