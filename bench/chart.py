"""Draws bench/results/chart.png from a results file (run with .bench/ray-venv's python,
which has matplotlib; beam itself never depends on it).

    .bench/ray-venv/bin/python bench/chart.py [bench/results/latest.json] [bench/results/chart.png]
    .bench/ray-venv/bin/python bench/chart.py bench/results/cold.json bench/results/cold.png  (bench/cold.py)
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "results", "latest.json")
    dst = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "results", "chart.png")
    doc = json.load(open(src))
    rows = [r for r in doc["rows"] if r.get("factor")][::-1]
    if not rows:
        print("chart: no row has both systems; nothing to draw")
        return 0
    labels = [r["metric"] for r in rows]
    factors = [r["factor"] for r in rows]
    colors = ["#2e7d32" if r["verdict"] == "PASS" else "#c62828" if (r["verdict"] or "").startswith("MISS") else "#607d8b"
              for r in rows]
    fig, ax = plt.subplots(figsize=(9, 0.42 * len(rows) + 1.4), dpi=90)
    y = range(len(rows))
    ax.barh(y, factors, color=colors, height=0.6)
    for i, r in enumerate(rows):
        if r["target"]:
            ax.plot([r["target"], r["target"]], [i - 0.4, i + 0.4], color="black", lw=2)
        ax.text(max(r["factor"], 1.0) * 1.08, i, f"{r['factor']:.1f}x", va="center", fontsize=8)
    ax.axvline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_yticks(list(y))
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_xlabel("beam vs Ray 2.60: times better (log scale)\nblack tick: target; green PASS, red MISS, grey: no target")
    m = doc.get("machine", {})
    shape = f"cold shape, worst of {doc['runs']} runs; " if doc.get("shape") == "cold" else ""
    ax.set_title(f"{shape}beam vs Ray, same machine, one after the other ({m.get('nproc')} CPUs, {m.get('memory_gib')} GiB; "
                 f"{doc.get('when', '')})", fontsize=9)
    ax.set_xlim(left=min(0.5, min(factors) / 1.5), right=max(factors) * 2.5)
    fig.tight_layout()
    fig.savefig(dst)
    print(f"chart: wrote {os.path.relpath(dst)} ({os.path.getsize(dst) // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
