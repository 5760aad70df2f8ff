#!/usr/bin/env python3
"""hnswlib on the vectors `searchlab hnsw-bench` reads, measured the way it measures.

The reference every HNSW implementation is compared with, run from PyPI (`pip install hnswlib
numpy`), never a dependency of searchlab. Same inputs as `hnsw-bench --vectors`: the first --docs
vectors of an .fvecs file are indexed, the next --queries are the queries. Same measures: one
build thread, one search thread, tie-aware recall@10 (a hit counts when its exact dot product
reaches the exact 10th best within 1e-5), the median of --rounds timed passes per ef after one
warm-up pass. A pass is one batch call over all queries with num_threads=1, so the loop over
queries runs in C++ and Python costs nothing per query.

Prints one JSON line per ef in hnsw-bench's field names, then a summary line with the QPS
interpolated at recall 0.95 and 0.99 (log-linear between the two efs around the target).

With --serve it is instead a peer of `searchlab hnsw-bench --peer`, which starts it and, so that
both sides meet the same machine, never runs at the same time as it: it reads one command per line
on stdin and answers each with one JSON line on stdout, then waits for the next.
  build      builds the index            -> {"impl", "buildSeconds", "buildCpuSeconds", "anonHugePagesMB"}
  pass EF    one timed pass at this ef   -> {"wall", "cpu", "recallSum"} (seconds; recall summed over queries)
Standard input closing ends it.
"""
import argparse
import json
import resource
import sys
import time

import hnswlib
import numpy as np


def read_fvecs(path, count):
    raw = np.fromfile(path, dtype=np.int32)
    dim = int(raw[0])
    rows = raw.reshape(-1, dim + 1)
    if rows.shape[0] < count:
        sys.exit(f"{path} holds {rows.shape[0]} vectors, fewer than the {count} asked for")
    return rows[:count, 1:].copy().view(np.float32), dim


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def kth_best(docs, queries, k):
    out = np.empty(len(queries), dtype=np.float32)
    for start in range(0, len(queries), 256):
        s = queries[start : start + 256] @ docs.T
        out[start : start + 256] = -np.partition(-s, k - 1, axis=1)[:, k - 1]
    return out


def recall(docs, queries, labels, kth, k):
    scores = np.einsum("qd,qkd->qk", queries, docs[labels])
    return float(np.mean(np.sum(scores >= (kth[:, None] - 1e-5), axis=1) / k))


def anon_huge_pages_mb():
    """This process's memory on transparent huge pages now (AnonHugePages), in MB; None off Linux."""
    try:
        with open("/proc/self/smaps_rollup") as f:
            for line in f:
                if line.startswith("AnonHugePages:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def interpolate(points, target):
    """QPS at `target` recall, log-linear between the two points around it, else None."""
    pts = sorted(points)
    for (r0, q0), (r1, q1) in zip(pts, pts[1:]):
        if r0 <= target <= r1 and r1 > r0:
            t = (target - r0) / (r1 - r0)
            return round(float(np.exp(np.log(q0) + t * (np.log(q1) - np.log(q0)))), 1)
    return None  # not bracketed: extend --ef downwards or upwards


def build_index(a, docs, dim):
    """hnswlib's index over docs, built on one thread: (index, wall seconds, CPU seconds)."""
    index = hnswlib.Index(space="ip", dim=dim)
    index.init_index(max_elements=a.docs, ef_construction=a.ef_construction, M=a.m,
                     random_seed=a.seed)
    index.set_num_threads(1)
    c0, t0 = cpu_seconds(), time.perf_counter()
    index.add_items(docs, np.arange(a.docs), num_threads=1)
    return index, time.perf_counter() - t0, cpu_seconds() - c0


def serve(a, docs, queries, kth, k, dim):
    """The --serve loop: build and timed passes on command, one JSON answer line each."""
    index = None
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "build":
            index, build, build_cpu = build_index(a, docs, dim)
            answer = {"impl": "hnswlib", "buildSeconds": build, "buildCpuSeconds": build_cpu,
                      "anonHugePagesMB": anon_huge_pages_mb()}
        elif words[0] == "pass" and len(words) == 2 and index is not None:
            index.set_ef(max(int(words[1]), k))
            c0, t0 = cpu_seconds(), time.perf_counter()
            labels, _ = index.knn_query(queries, k=k, num_threads=1)
            wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
            answer = {"wall": wall, "cpu": cpu,
                      "recallSum": recall(docs, queries, labels.astype(np.int64), kth, k) * len(queries)}
        else:
            answer = {"error": "unknown command (build, then pass EF): " + line.strip()[:40]}
        print(json.dumps(answer), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vectors", required=True)
    p.add_argument("--docs", type=int, default=62665)
    p.add_argument("--queries", type=int, default=1000)
    p.add_argument("--m", type=int, default=16)
    p.add_argument("--ef-construction", type=int, default=200)
    p.add_argument("--ef", default="16,32,64,128,256")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--serve", action="store_true",
                   help="be hnsw-bench's --peer: build and pass on command (see above)")
    a = p.parse_args()
    k = 10
    data, dim = read_fvecs(a.vectors, a.docs + a.queries)
    docs, queries = data[: a.docs], data[a.docs :]
    kth = kth_best(docs, queries, k)
    if a.serve:
        serve(a, docs, queries, kth, k, dim)
        return

    index, build, build_cpu = build_index(a, docs, dim)
    huge_mb = anon_huge_pages_mb()

    points = []
    for ef in [int(x) for x in a.ef.split(",")]:
        index.set_ef(max(ef, k))
        labels, _ = index.knn_query(queries, k=k, num_threads=1)  # warm-up
        wall, cpu = [], []
        for _ in range(a.rounds):
            c0, t0 = cpu_seconds(), time.perf_counter()
            labels, _ = index.knn_query(queries, k=k, num_threads=1)
            wall.append(time.perf_counter() - t0)
            cpu.append(cpu_seconds() - c0)
        r = recall(docs, queries, labels.astype(np.int64), kth, k)
        qps = len(queries) / float(np.median(wall))
        points.append((r, qps))
        print(json.dumps({
            "impl": "hnswlib", "n": a.docs, "dim": dim, "M": a.m,
            "efConstruction": a.ef_construction, "ef": ef, "recallAt10": round(r, 4),
            "qps": round(qps, 1), "cpuQps": round(len(queries) / float(np.median(cpu)), 1),
            "buildSeconds": round(build, 2), "buildCpuSeconds": round(build_cpu, 2),
            "buildThreads": 1, "buildDocsPerSecPerThread": round(a.docs / build, 1),
            "anonHugePagesMB": huge_mb,
        }), flush=True)
    print(json.dumps({"impl": "hnswlib", "summary": True,
                      "qpsAtRecall095": interpolate(points, 0.95),
                      "qpsAtRecall099": interpolate(points, 0.99),
                      "buildSeconds": round(build, 2)}), flush=True)


if __name__ == "__main__":
    main()
