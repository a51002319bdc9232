"""The versions are written once (python/ray/_version/RAY and BEAM): every other place
reads them. A copy elsewhere in code or tests would drift at the next upgrade, so this fails
naming it. Docs (*.md) say the figures in prose, and recorded goldens keep what they recorded."""
import importlib.metadata
import pathlib
import re
import subprocess

import ray
from ray import _version as version

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCES = {"python/ray/_version/RAY", "python/ray/_version/BEAM"}


def test_each_version_is_a_release_number_and_what_python_answers():
    for v in (version.RAY, version.BEAM):
        assert re.fullmatch(r"\d+\.\d+\.\d+", v), v
    assert ray.__version__ == version.RAY == importlib.metadata.version("ray")


def test_no_file_but_the_sources_writes_a_version():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    copies = []
    for name in files:
        if name in SOURCES or name.endswith(".md") or name.startswith("tests/golden/") or name.endswith(".png"):
            continue
        try:
            text = (ROOT / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        for v in (version.RAY, version.BEAM):
            if re.search(r"(?<![\d.])" + re.escape(v) + r"(?![\d.])", text):
                copies.append(f"{name}: {v}")
    assert not copies, "read the version from python/ray/_version/ instead of writing it again:\n" + "\n".join(copies)
