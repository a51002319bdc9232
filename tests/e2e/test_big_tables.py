"""Cluster state of any size: with more placement groups than a frame header can
list (~2,800 broke it) and more removals than the tombstones kept (10,000),
placement_group_table(), ray.nodes(), `ray status`, `ray status --json` and `ray list`
all work, before and after removing every group. bench/big_tables.py runs 100,000."""
import json
import os
import shutil
import tempfile

import pytest

from conftest import ray_cli, read_line_with, spawn_driver, wait_gone

GROUPS = 12_000


@pytest.fixture
def head():
    base = tempfile.mkdtemp(prefix="beam-tables-")
    done = ray_cli(["start", "--head", "--port", "0", "--temp-dir", base, "--num-cpus", "1",
                    "--resources", json.dumps({"slot": GROUPS})], timeout=60)
    assert done.returncode == 0, done.stderr
    yield base
    ray_cli(["stop", "--temp-dir", base], timeout=30)
    wait_gone(base=base, within=10)
    shutil.rmtree(base, ignore_errors=True)


def check_views(base, groups_in_status):
    for args in (["status"], ["list", "nodes"], ["list", "placement-groups"]):
        done = ray_cli(args, temp_dir=base, timeout=120)
        assert done.returncode == 0, (args, done.stderr[-2000:])
    done = ray_cli(["status", "--json"], temp_dir=base, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(json.loads(done.stdout)["placement_groups"]) == groups_in_status


def test_tables_past_the_header_limit_and_the_tombstones(head, tmp_path):
    go = tmp_path / "go"
    driver = spawn_driver(head, f"""
        import os, time, ray
        from ray.util.placement_group import placement_group, placement_group_table, remove_placement_group
        ray.init()
        pgs = [placement_group([{{"slot": 1}}]) for _ in range({GROUPS})]
        ray.get(pgs[-1].ready(), timeout=120)
        table = placement_group_table()
        print("created", sum(1 for e in table.values() if e["state"] == "CREATED"))
        print("nodes", len(ray.nodes()))
        print("READY", flush=True)
        while not os.path.exists({str(go)!r}):
            time.sleep(0.1)
        for pg in pgs:
            remove_placement_group(pg)
        table = placement_group_table()
        print("after", len(table), sorted({{e["state"] for e in table.values()}}))
        print("nodes", len(ray.nodes()))
        print("DONE", flush=True)
        while True:  # holds the session until the test has looked
            time.sleep(1)
    """)
    try:
        lines = read_line_with(driver, "READY", timeout=300)
        assert f"created {GROUPS}\n" in lines and "nodes 1\n" in lines, lines
        check_views(head, GROUPS)
        go.touch()
        lines = read_line_with(driver, "DONE", timeout=300)
        # removed groups are kept as at most 10,000 tombstones, in the table and not in status
        assert "after 10000 ['REMOVED']\n" in lines, lines
        check_views(head, 0)
    finally:
        driver.kill()
        driver.wait()
