"""The table and the chart of bench/scale.py's runs (one run per N).

The rows "per node" are what must stay flat from 1,000 to 10,000 nodes: a head whose cost
per node grows with N has an O(N) step per node somewhere (per heartbeat, per join).
The chart is drawn by .bench/ray-venv's python (matplotlib; beam never depends on it).
"""
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
CHART_PY = os.path.join(os.path.dirname(HERE), ".bench", "ray-venv", "bin", "python")


def mib(b):
    return b / (1 << 20)


def head_cpu_us_per_node_s(r):
    """Head CPU per node per second of heartbeats, in microseconds."""
    return r["heartbeat_cpu_pct"] / 100 * 1e6 / r["nodes"]


def rows_of(runs):
    rows = [("figure", [f"N={r['nodes']:,}" for r in runs])]

    def row(name, fn):
        vals = []
        for r in runs:
            try:
                vals.append(fn(r))
            except (KeyError, TypeError, ZeroDivisionError):
                vals.append("-")
        rows.append((name, vals))

    row("join all N (s)", lambda r: f"{r['join_s']:.2f}")
    row("  join per node (ms)", lambda r: f"{r['join_s'] / r['nodes'] * 1000:.2f}")
    row("ray.nodes() (ms)", lambda r: f"{r['ray_nodes_ms']:.1f}")
    row("head RSS after join (MiB)", lambda r: f"{mib(r['after_join']['rss_bytes']):.0f}")
    row("head heap after GC (MiB)", lambda r: f"{mib(r['after_join']['heap_used_bytes']):.1f}")
    row("  heap per node (KiB)", lambda r: f"{r['heap_used_bytes_per_node'] / 1024:.1f}")
    row("  RSS per node (KiB)", lambda r: f"{r['rss_bytes_per_node'] / 1024:.0f}")
    row("head fds", lambda r: f"{r['after_join']['open_fds']:,}")
    row("  fds per node", lambda r: f"{r['open_fds_per_node']:.2f}")
    row("head threads", lambda r: f"{r['after_join']['threads']}")
    row("head CPU, heartbeats only (%)", lambda r: f"{r['heartbeat_cpu_pct']:.1f}")
    row("  per node (us of CPU per s)", lambda r: f"{head_cpu_us_per_node_s(r):.1f}")
    row("  (idle, 0 nodes) (%)", lambda r: f"{r['idle_cpu_pct_0_nodes']:.1f}")
    row("  (fake-node processes) (%)", lambda r: f"{r['fake_agent_cpu_pct']:.1f}")
    row("64-GPU PACK groups placed", lambda r: f"{r['pg_groups']}")
    row("  create+ready all (s)", lambda r: f"{r['pg_create_ready_s']:.3f}")
    row("  remove all (s)", lambda r: f"{r['pg_remove_s']:.3f}")
    for m in ("10", "100", "1000"):
        row(f"M={m}: actors up (s)", lambda r, m=m: f"{r['broadcast'][m]['create_and_first_call_s']:.3f}")
        row(f"M={m}: broadcast p50 (ms)", lambda r, m=m: f"{r['broadcast'][m]['p50_s'] * 1000:.1f}")
    row("head RSS at end (MiB)", lambda r: f"{mib(r['end']['rss_bytes']):.0f}")
    row("nodes lost during run", lambda r: f"{r['nodes_lost_during_run']}")
    return rows


OBJECT_ROWS = [
    ("placement groups created (s)", "pg_create_s"), ("  all ready (s)", "pg_ready_s"),
    ("  placement_group_table() (s)", ("pg_views", "placement_group_table_s")),
    ("  `ray status --json` (s)", ("pg_views", "ray_status_json_s")),
    ("  `ray list placement-groups` (s)", ("pg_views", "ray_list_placement-groups_s")),
    ("  removed (s)", "pg_remove_s"),
    ("actors created (s)", "actor_create_s"), ("  all answered a call (s)", "actor_ready_s"),
    ("  `ray status --json` (s)", ("actor_views", "ray_status_json_s")),
    ("  `ray list actors` (s)", ("actor_views", "ray_list_actors_s")),
    ("  killed (s)", "actor_kill_s"), ("  already gone when killed", "actors_already_gone"),
]


def objects_rows(obj):
    out = []
    for label, key in OBJECT_ROWS:
        v = obj.get(key) if isinstance(key, str) else obj.get(key[0], {}).get(key[1])
        out.append((label, "-" if v is None else f"{v:.2f}" if isinstance(v, float) else f"{v:,}"))
    return out


def render(rows):
    w0 = max(len(name) for name, _ in rows)
    w = [max(len(str(v[i])) for _, v in rows) for i in range(len(rows[0][1]))]
    text, md = [], []
    for k, (name, vals) in enumerate(rows):
        text.append(name.ljust(w0) + "  " + "  ".join(str(v).rjust(w[i]) for i, v in enumerate(vals)))
        md.append("| " + name.strip() + " | " + " | ".join(str(v) for v in vals) + " |")
        if k == 0:
            md.append("| --- |" + " ---: |" * len(vals))
    return "\n".join(text), "\n".join(md)


CHART = r"""
import json, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
runs = json.load(open(sys.argv[1]))["runs"]
n = [r["nodes"] for r in runs]
per = [
    ("join per node (ms)", [r["join_s"] / r["nodes"] * 1000 for r in runs]),
    ("heap per node (KiB)", [r["heap_used_bytes_per_node"] / 1024 for r in runs]),
    ("RSS per node (KiB)", [r["rss_bytes_per_node"] / 1024 for r in runs]),
    ("fds per node", [r["open_fds_per_node"] for r in runs]),
    ("heartbeat CPU per node (us/s)", [r["heartbeat_cpu_pct"] / 100 * 1e6 / r["nodes"] for r in runs]),
    ("head threads", [r["after_join"]["threads"] for r in runs]),
]
fig, ax = plt.subplots(2, 3, figsize=(13, 7))
for a, (title, ys) in zip(ax.flat, per):
    a.plot(n, ys, "o-"); a.set_title(title); a.set_xscale("log"); a.set_xlabel("N nodes")
    a.set_ylim(bottom=0); a.grid(alpha=.3)
fig.suptitle("beam head: cost per node against N simulated 8-GPU nodes (flat is the goal)")
fig.tight_layout(); fig.savefig(sys.argv[2], dpi=100)
"""


def chart(json_path, png):
    if not os.path.exists(CHART_PY):
        return "no chart: .bench/ray-venv is missing (bench/setup_ray.sh makes it)"
    r = subprocess.run([CHART_PY, "-c", CHART, json_path, png], capture_output=True, text=True)
    if r.returncode != 0:
        return "no chart: " + (r.stderr.strip().splitlines() or ["matplotlib failed"])[-1]
    return None


def write(meta, runs, name):
    os.makedirs(RESULTS, exist_ok=True)
    base = os.path.join(RESULTS, name)
    with open(base + ".json", "w") as f:
        json.dump({"meta": meta, "runs": runs}, f, indent=1)
    note = chart(base + ".json", base + ".png")
    text, md = render(rows_of(runs))
    print(text)
    obj = next((r["objects"] for r in runs if "objects" in r), None)
    if obj:
        where = next(r["nodes"] for r in runs if "objects" in r)
        otext, omd = render([(f"{obj['objects']:,} objects at N={where:,}", ["time"])] + [
            (label, [v]) for label, v in objects_rows(obj)])
        print("\n" + otext)
        md += "\n\n" + omd
    print(f"\nwrote {base}.json" + (f" and {base}.png" if note is None else f" ({note})"))
    print(f"elapsed {meta['elapsed_s']:.1f} s")
    with open(base + ".table.md", "w") as f:
        f.write(md + "\n")
