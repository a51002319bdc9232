"""ObjectRef: Ray's handle to an object in this process's object table (objects.py).

A ref counts itself in its table while it lives. Pickled (nested in arguments or return
values), it carries its value when that is ready, because beam has no cross-process object
fetch; a ref sent while still pending cannot be read on the other side (ObjectLostError).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

from ray._beam.api import process

if TYPE_CHECKING:
    import concurrent.futures

    from ray._beam.api.objects import ObjectTable


class ObjectRef:
    """A reference to an object in this process's table (Ray's ``ray.ObjectRef``)."""

    __slots__ = ("_oid", "_table", "__weakref__")

    def __init__(self, oid: str, table: Optional["ObjectTable"] = None):
        self._oid = oid
        self._table = table
        if table is not None:
            table.incref(oid)

    @classmethod
    def _counted(cls, oid: str, table: "ObjectTable") -> "ObjectRef":
        """A ref whose table entry already counts it (ObjectTable.register)."""
        ref = object.__new__(cls)
        ref._oid, ref._table = oid, table
        return ref

    def hex(self) -> str:
        return self._oid

    def binary(self) -> bytes:
        return bytes.fromhex(self._oid)

    def is_nil(self) -> bool:
        return set(self._oid) <= {"f"}

    def __repr__(self):
        return f"ObjectRef({self._oid})"

    def __eq__(self, other):
        return isinstance(other, ObjectRef) and other._oid == self._oid

    def __hash__(self):
        return hash(self._oid)

    def __del__(self):
        table = self._table
        if table is not None:
            try:
                table.decref(self._oid)
            except Exception:
                pass

    def __reduce__(self):
        table = self._table
        return (_rebuild_ref, (self._oid, table.value_to_send(self._oid) if table is not None else None))

    def _on_completed(self, callback: Callable[[object], None]) -> None:
        """Ray's internal hook: call ``callback(value or exception)`` when done."""
        def done(entry):
            try:
                value = entry.load()
            except BaseException as e:  # noqa: BLE001 - handed to the callback
                value = e
            callback(value)
        table = self._require_table()
        table.on_done(self._oid, done)
        table.flush_writes()

    def future(self) -> "concurrent.futures.Future":
        """A concurrent.futures.Future completed with the value (or the error)."""
        import concurrent.futures  # here, not at import: actor workers start faster without it

        fut: concurrent.futures.Future = concurrent.futures.Future()

        def done(entry):
            try:
                fut.set_result(entry.load())
            except BaseException as e:  # noqa: BLE001
                fut.set_exception(e)
        table = self._require_table()
        table.on_done(self._oid, done)
        table.flush_writes()
        return fut

    def __await__(self):
        import asyncio  # here, not at import: asyncio alone costs tens of ms per process start

        return asyncio.wrap_future(self.future()).__await__()

    def _require_table(self) -> "ObjectTable":
        if self._table is None:
            raise RuntimeError("this ObjectRef does not belong to a connected beam client")
        return self._table




def _rebuild_ref(oid: str, data: Optional[bytes]) -> ObjectRef:
    table = process.table()
    if table is not None:
        table.adopt(oid, data)
    return ObjectRef(oid, table)
