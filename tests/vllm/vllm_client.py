"""A tiny HTTP client for the `vllm serve` tests, run inside a host's network namespace (the
root namespace has no address on the test bridge). Standard library only.

    python vllm_client.py wait URL SECONDS        poll URL/health until 200; {"ready_s": ...}
    python vllm_client.py complete URL JSON       POST URL/v1/completions; the response JSON
    python vllm_client.py metrics URL             GET URL/metrics; {"text": ...}
    python vllm_client.py probe URL               GET URL/health once; {"status": code|null}
"""

import json
import sys
import time
import urllib.error
import urllib.request


def get(url, timeout):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read().decode()


def main():
    action, url = sys.argv[1], sys.argv[2].rstrip("/")
    if action == "wait":
        t0, limit = time.monotonic(), float(sys.argv[3])
        last = None
        while time.monotonic() - t0 < limit:
            try:
                if get(url + "/health", 5)[0] == 200:
                    print(json.dumps({"ready_s": round(time.monotonic() - t0, 2)}))
                    return 0
            except (OSError, urllib.error.URLError) as e:
                last = repr(e)
            time.sleep(0.5)
        print(f"not ready within {limit} s: {last}", file=sys.stderr)
        return 1
    if action == "complete":
        req = urllib.request.Request(url + "/v1/completions", data=sys.argv[3].encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=120) as r:
            print(r.read().decode())
        return 0
    if action == "metrics":
        print(json.dumps({"text": get(url + "/metrics", 30)[1]}))
        return 0
    if action == "probe":
        try:
            print(json.dumps({"status": get(url + "/health", 2)[0]}))
        except (OSError, urllib.error.URLError) as e:
            print(json.dumps({"status": None, "error": repr(e)}))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
