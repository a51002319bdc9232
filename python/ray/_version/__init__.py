"""The versions, each written once, in the files beside this one: ``RAY``, the Ray release
beam answers as (the distribution's version, ``ray.__version__``, the wheel's name; setuptools
reads it for pyproject.toml), and ``BEAM``, beam's own (the jar, ``ray --version``, the node's
facts). The jar carries both files as resources (java/pom.xml) and reads them through
``beam.util.Versions``; tests/unit/test_versions.py fails where a copy of either appears."""

import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def _read(name: str) -> str:
    with open(os.path.join(_HERE, name), encoding="ascii") as f:
        return f.read().strip()


RAY = _read("RAY")
BEAM = _read("BEAM")
version = RAY  # the name Ray's own ray._version has
