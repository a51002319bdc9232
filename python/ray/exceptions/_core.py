"""The task, actor and system errors of ray.exceptions: the classes vLLM and user code catch.

Defined here and exported by ray/exceptions/__init__.py, whose doc says why they match Ray.
"""

from __future__ import annotations

import os
from typing import Optional, Type

_CYAN = "\x1b[36m"  # colorama.Fore.CYAN, as Ray prints the task header
_RESET = "\x1b[39m"  # colorama.Fore.RESET


class RayError(Exception):
    """Super class of all ray exception types."""


class CrossLanguageError(RayError):
    """Raised from another language."""


class TaskCancelledError(RayError):
    """Raised when this task is cancelled."""

    def __init__(self, task_id=None, error_message: Optional[str] = None):
        self.task_id = task_id
        self.error_message = error_message

    def __str__(self):
        msg = ""
        if self.task_id:
            msg = "Task: " + str(self.task_id) + " was cancelled. "
        if self.error_message:
            msg += self.error_message
        return msg


class RayTaskError(RayError):
    """A task (an actor method here) raised; ``cause`` is the user's exception."""

    def __init__(self, function_name, traceback_str, cause, proctitle=None, pid=None,
                 ip=None, actor_repr=None, actor_id=None):
        self.proctitle = proctitle or f"ray::{function_name}"
        self.pid = pid or os.getpid()
        self.ip = ip or "127.0.0.1"
        self.function_name = function_name
        self.traceback_str = traceback_str
        self.actor_repr = actor_repr
        self._actor_id = actor_id
        self.cause = cause
        self.args = (function_name, traceback_str, cause, proctitle, pid, ip)
        assert traceback_str is not None

    def make_dual_exception_type(self) -> Type:
        """A type inheriting from both RayTaskError and the cause's class."""
        cause_cls = self.cause.__class__
        error_msg = str(self)

        class cls(RayTaskError, cause_cls):
            def __init__(self, cause):
                self.cause = cause
                self.args = (cause,)

            def __getattr__(self, name):
                return getattr(self.cause, name)

            def __str__(self):
                return error_msg

        name = f"RayTaskError({cause_cls.__name__})"
        cls.__name__ = name
        cls.__qualname__ = name
        cls.__module__ = RayTaskError.__module__  # ray.exceptions, where tracebacks name it
        return cls

    def as_instanceof_cause(self):
        """An exception that is an instance of both RayTaskError and the cause's class."""
        cause_cls = self.cause.__class__
        if issubclass(RayTaskError, cause_cls):
            return self
        try:
            return self.make_dual_exception_type()(self.cause)
        except TypeError:
            return self

    def __str__(self):
        lines = self.traceback_str.strip().split("\n")
        out = []
        for line in lines:
            if line.startswith("Traceback "):
                head = f"{_CYAN}{self.proctitle}(){_RESET} (pid={self.pid}, ip={self.ip}"
                if self.actor_repr:
                    head += f", actor_id={self._actor_id}, repr={self.actor_repr})"
                else:
                    head += ")"
                out.append(head)
            else:
                out.append(line)
        return "\n".join(out)


class LocalRayletDiedError(RayError):
    def __str__(self):
        return "The task's local raylet died. Check raylet.out for more information."


class WorkerCrashedError(RayError):
    def __str__(self):
        return ("The worker died unexpectedly while executing this task. "
                "Check python-core-worker-*.log files for more information.")


class RayActorError(RayError):
    """The actor is dead or unavailable; subclasses say which."""

    BASE_ERROR_MSG = "The actor experienced an error before finishing this task."

    def __init__(self, actor_id: str = None, error_msg: str = BASE_ERROR_MSG,
                 actor_init_failed: bool = False, preempted: bool = False):
        self.actor_id = actor_id
        self.error_msg = error_msg
        self._actor_init_failed = actor_init_failed
        self._preempted = preempted
        self.args = (actor_id, error_msg)

    def __str__(self) -> str:
        return self.error_msg

    def __reduce__(self):
        return (_rebuild_actor_error,
                (type(self), self.actor_id, self.error_msg, self._actor_init_failed, self._preempted))

    @property
    def preempted(self) -> bool:
        return self._preempted

    @property
    def actor_init_failed(self) -> bool:
        return self._actor_init_failed


def _rebuild_actor_error(cls, actor_id, error_msg, init_failed, preempted):
    exc = cls.__new__(cls)
    RayActorError.__init__(exc, actor_id, error_msg, init_failed, preempted)
    return exc


class ActorDiedError(RayActorError):
    """The actor died before finishing the task. beam passes the daemon's message as ``cause``."""

    BASE_ERROR_MSG = "The actor died unexpectedly before finishing this task."

    def __init__(self, cause=None, actor_id: Optional[str] = None):
        init_failed = False
        if cause is None:
            msg = ActorDiedError.BASE_ERROR_MSG
        elif isinstance(cause, RayTaskError):
            init_failed = True
            actor_id = actor_id or cause._actor_id
            msg = f"The actor died because of an error raised in its creation task, {cause}"
        else:
            msg = str(cause)
        super().__init__(actor_id, msg, init_failed, False)

    @staticmethod
    def from_task_error(task_error: RayTaskError):
        return ActorDiedError(task_error)


class ActorUnavailableError(RayActorError):
    """The actor is temporarily unavailable but may be available later."""

    def __init__(self, error_message: str, actor_id=None):
        if isinstance(actor_id, bytes):
            actor_id = actor_id.hex()
        msg = (f"The actor {actor_id} is unavailable: {error_message}. The task may or may"
               "not have been executed on the actor.")
        super().__init__(actor_id, msg, False, False)


class RaySystemError(RayError):
    """Ray (here: beam) encountered a system error."""

    def __init__(self, client_exc, traceback_str=None):
        self.client_exc = client_exc
        self.traceback_str = traceback_str
        self.args = (client_exc,)

    def __str__(self):
        msg = f"System error: {self.client_exc}"
        if self.traceback_str:
            msg += f"\ntraceback: {self.traceback_str}"
        return msg
