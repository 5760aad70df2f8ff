#!/usr/bin/env python3
"""Does the segmented store keep its write-ahead log bounded without _flush, and restart as fast?

For each of four cases, on a fresh data directory: start `searchlab serve --store segmented`,
feed --docs new documents in _bulk requests of --bulk (one thread), read the size of the data
directory's wal/ after every bulk, then SIGKILL the server and time its restart (process start to
the first /health 200), read the store's replayed_operations from /_admin/stats and check that the
last document fed is there.

  threshold   --flush-threshold-bytes THRESHOLD, _flush never called; after the feed, bulks of 100
              until the log holds 90% of the threshold, the worst moment to crash
  flush       the same threshold, one POST /_flush after the feed, then the kill
  idle        as threshold, then no writes until the store's idle commit (--flush-idle-ms IDLE_MS)
              has run, then the kill: a store that was fed and went quiet
  default     the default threshold (512 MB, above what this feed writes), _flush never called:
              what every restart cost before the threshold existed

Usage: qa/walsize/run.py [--docs 200000] [--threshold-mb 16] [--idle-ms 1000] [--rounds 2]
                        [--port 9311] [--cases threshold,flush,idle,default]
Needs the jars built (bin/searchlab builds them on first use). Standard library only.
"""
import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "qa", "tinyfs"))
from fill import call  # noqa: E402  (the same small HTTP helper as the full-disk check)

WORDS = ("disk write ahead log snapshot segment graph posting lucene vespa search index replay "
         "restart durable fsync commit merge vector bulk threshold translog flush").split()


def bulk_body(start, n, dims, rnd):
    lines = []
    for i in range(start, start + n):
        v = [rnd.gauss(0, 1) for _ in range(dims)]
        norm = sum(x * x for x in v) ** 0.5
        d = {"title": " ".join(rnd.choice(WORDS) for _ in range(6)),
             "description": " ".join(rnd.choice(WORDS) for _ in range(40)),
             "category": rnd.choice("abcdefgh"), "price": rnd.randrange(1, 10000),
             "average_rating": round(rnd.uniform(1, 5), 2), "embedding": [x / norm for x in v]}
        lines.append(json.dumps({"index": {"_index": "product", "_id": f"d{i}"}}))
        lines.append(json.dumps(d))
    return ("\n".join(lines) + "\n").encode()


def wal_bytes(data):
    total = 0
    for dirpath, _, files in os.walk(os.path.join(data, "wal")):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(dirpath, f))
            except OSError:
                pass
    return total


def start(a, data, threshold, log, idle_ms=0):
    cmd = [os.path.join(ROOT, "bin", "searchlab"), "serve", "--store", "segmented", "--data-dir",
           data, "--dims", str(a.dims), "--port", str(a.port)]
    if threshold:
        cmd += ["--flush-threshold-bytes", str(threshold)]
    if idle_ms:
        cmd += ["--flush-idle-ms", str(idle_ms)]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    while time.monotonic() - t0 < 300:
        if p.poll() is not None:
            sys.exit(f"server exited with {p.returncode}; see {log.name}")
        if call(f"http://127.0.0.1:{a.port}/health")[0] == 200:
            return p, time.monotonic() - t0
        time.sleep(0.05)
    sys.exit("server did not answer within 300 s")


def stat(url, key):
    status, body = call(url + "/_admin/stats")
    if status != 200:
        return None
    found = []

    def walk(o):
        if isinstance(o, dict):
            for k, v in o.items():
                if k == key:
                    found.append(v)
                walk(v)
    walk(json.loads(body))
    return found[0] if found else None


def replayed(url):
    return stat(url, "replayed_operations")


def case(a, name, threshold, flush, out, idle_ms=0):
    url = f"http://127.0.0.1:{a.port}"
    data = tempfile.mkdtemp(prefix=f"walsize-{name}-", dir=a.work)
    with open(os.path.join(out, f"{name}.log"), "ab") as log:
        p, _ = start(a, data, threshold, log, idle_ms)
        rnd = random.Random(a.seed)
        peak = 0
        t0 = time.monotonic()
        for i in range(0, a.docs, a.bulk):
            status, body = call(url + "/_bulk", "POST", bulk_body(i, a.bulk, a.dims, rnd),
                                "application/x-ndjson")
            if status != 200 or json.loads(body).get("errors"):
                sys.exit(f"{name}: bulk at {i} failed: HTTP {status} {body[:200]}")
            peak = max(peak, wal_bytes(data))
        feed_s = time.monotonic() - t0
        if threshold and not flush:
            # The worst moment to crash: just before the log reaches the threshold (the next
            # commit). Feed small bulks until the log holds at least 90% of it.
            i = a.docs
            while wal_bytes(data) < 0.9 * threshold and i < a.docs + 1_000_000:
                status, body = call(url + "/_bulk", "POST", bulk_body(i, 100, a.dims, rnd),
                                    "application/x-ndjson")
                if status != 200 or json.loads(body).get("errors"):
                    sys.exit(f"{name}: bulk at {i} failed: HTTP {status} {body[:200]}")
                i += 100
            last_id = i - 1
        else:
            last_id = a.docs - 1
        if flush:
            status, body = call(url + "/product/_flush", "POST", b"{}")
            if status != 200:
                sys.exit(f"{name}: _flush failed: HTTP {status} {body[:200]}")
        idle_wait_s = None
        if idle_ms:
            t1 = time.monotonic()
            while not stat(url, "idle_flushes") and time.monotonic() - t1 < 600:
                time.sleep(0.05)
            if not stat(url, "idle_flushes"):
                sys.exit(f"{name}: no idle commit within 600 s")
            idle_wait_s = round(time.monotonic() - t1, 2)
        before_kill = wal_bytes(data)
        p.send_signal(signal.SIGKILL)
        p.wait()
        p, restart_s = start(a, data, threshold, log, idle_ms)
        ops = replayed(url)
        last = call(f"{url}/product/_doc/d{last_id}")[0]
        p.send_signal(signal.SIGTERM)
        p.wait()
    shutil.rmtree(data, ignore_errors=True)
    return {"case": name, "threshold_bytes": threshold, "docs": a.docs, "feed_s": round(feed_s, 1),
            "wal_peak_bytes": peak, "wal_at_kill_bytes": before_kill,
            "restart_s": round(restart_s, 2), "replayed_operations": ops,
            "last_doc_status": last, "idle_wait_s": idle_wait_s}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=200_000)
    ap.add_argument("--bulk", type=int, default=1000)
    ap.add_argument("--dims", type=int, default=16)
    ap.add_argument("--threshold-mb", type=float, default=16)
    ap.add_argument("--idle-ms", type=int, default=1000,
                    help="the idle case's --flush-idle-ms")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--port", type=int, default=9311)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--cases", default="threshold,flush,idle,default",
                    help="which of threshold, flush, idle, default to run (comma-separated)")
    ap.add_argument("--work", default=None, help="where the data directories go (default: a temp dir)")
    a = ap.parse_args()
    a.cases = a.cases.split(",")
    a.work = a.work or tempfile.mkdtemp(prefix="walsize-")
    os.makedirs(a.work, exist_ok=True)
    out = os.path.join(ROOT, "qa", "walsize", "target")
    os.makedirs(out, exist_ok=True)
    threshold = int(a.threshold_mb * (1 << 20))
    rows = []
    for r in range(a.rounds):
        for name, thr, flush, idle in (("threshold", threshold, False, 0),
                                       ("flush", threshold, True, 0),
                                       ("idle", threshold, False, a.idle_ms),
                                       ("default", 0, False, 0)):
            if name not in a.cases:
                continue
            row = case(a, name, thr, flush, out, idle)
            row["round"] = r
            rows.append(row)
            print(json.dumps(row), flush=True)
    for name in a.cases:
        times = sorted(x["restart_s"] for x in rows if x["case"] == name)
        if times:
            replayed = sorted({x["replayed_operations"] for x in rows if x["case"] == name})
            print(f"{name}: restart median {statistics.median(times):.2f} s over {len(times)} "
                  f"(min {times[0]:.2f}, max {times[-1]:.2f}), replayed {replayed}")
    ok = all(x["last_doc_status"] == 200 for x in rows)
    bounded = all(x["wal_peak_bytes"] <= threshold + (8 << 20)
                  for x in rows if x["case"] != "default")
    print(f"summary: every last document there after its restart: {ok}; threshold cases' log peak "
          f"≤ threshold + one 8 MiB log file: {bounded}")
    return 0 if ok and bounded else 1


if __name__ == "__main__":
    sys.exit(main())
