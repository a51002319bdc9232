"""Where a process's resident memory is: RSS per mapping (from /proc/PID/smaps), largest first.

    python3 bench/rss_breakdown.py PID [PID...]
"""
import collections
import sys


def breakdown(pid):
    by = collections.Counter()
    name = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 5 and "-" in parts[0] and ":" in parts[3]:
                name = parts[5] if len(parts) > 5 else "[anon]"
                if "/" in name:
                    name = name.rsplit("/", 1)[1]
            elif parts and parts[0] == "Rss:":
                by[name] += int(parts[1])
    return by


def main():
    for pid in sys.argv[1:]:
        by = breakdown(int(pid))
        total = sum(by.values())
        print(f"pid {pid}: RSS {total / 1024:.1f} MiB")
        for k, v in by.most_common(12):
            print(f"  {v / 1024:7.1f} MiB  {k}")


if __name__ == "__main__":
    main()
