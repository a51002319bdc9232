"""``ray.cloudpickle``: Ray vendors cloudpickle; beam re-exports the installed one."""

from cloudpickle import *  # noqa: F401,F403
from cloudpickle import CloudPickler, dump, dumps, load, loads  # noqa: F401

Pickler = CloudPickler
