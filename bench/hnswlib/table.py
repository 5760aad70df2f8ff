#!/usr/bin/env python3
"""Markdown tables from compare.sh's JSON lines: recall and QPS per ef, then QPS at recall.

With several rounds, each cell is the median over rounds and the range follows in brackets. The
last table gives each implementation's ratio to hnswlib: hnsw-bench measured them in lock-step
(--peer), so each round's ratio is already the median over pairs of passes seconds apart; the
table lists it per round, then the median over rounds.
"""
import json
import statistics
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
impls = list(dict.fromkeys(r["impl"] for r in rows))
rounds = sorted({r.get("round", 1) for r in rows})
per = [r for r in rows if not r.get("summary")]
summaries = [r for r in rows if r.get("summary")]
efs = sorted({r["ef"] for r in per})


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def spread(values):
    values = [v for v in values if v is not None]
    return f" [{min(values):,.0f}–{max(values):,.0f}]" if len(values) > 1 else ""


print(f"{len(rounds)} round(s); medians over rounds, range in brackets")
print()
print("| ef | " + " | ".join(f"{i} recall → QPS" for i in impls) + " |")
print("|---:|" + "---|" * len(impls))
for ef in efs:
    cells = []
    for i in impls:
        rs = [x for x in per if x["impl"] == i and x["ef"] == ef]
        if not rs:
            cells.append("–")
            continue
        qps = [x["qps"] for x in rs]
        visits = med([x.get("nsPerVisited") for x in rs])
        extra = f" ({visits:.0f} ns/visit)" if visits is not None else ""
        cells.append(f"{med([x['recallAt10'] for x in rs]):.3f} → {med(qps):,.0f}{spread(qps)}{extra}")
    print(f"| {ef} | " + " | ".join(cells) + " |")
print()
print("| impl | QPS at recall 0.95 | QPS at recall 0.99 | build s (1 thread) |")
print("|---|---:|---:|---:|")
for i in impls:
    ss = [s for s in summaries if s["impl"] == i]
    if not ss:
        continue
    cols = []
    for key in ("qpsAtRecall095", "qpsAtRecall099", "buildSeconds"):
        vals = [s.get(key) for s in ss]
        m = med(vals)
        fmt = (lambda v: f"{v:.1f}") if key == "buildSeconds" else (lambda v: f"{v:,.0f}")
        cols.append("–" if m is None else fmt(m) + (spread(vals) if key != "buildSeconds" else
                    (f" [{min(v for v in vals if v is not None):.1f}–{max(v for v in vals if v is not None):.1f}]" if len([v for v in vals if v is not None]) > 1 else "")))
    print(f"| {i} | " + " | ".join(cols) + " |")
if "hnswlib" in impls and len(impls) > 1:
    print()
    print("| impl ÷ hnswlib, paired passes, per round | QPS at 0.95 | QPS at 0.99 | build time |")
    print("|---|---|---|---|")
    for i in impls:
        if i == "hnswlib":
            continue
        cols = []
        for key in ("qpsAtRecall095VsHnswlib", "qpsAtRecall099VsHnswlib", "buildSecondsVsHnswlib"):
            ratios = [s[key] for s in summaries if s["impl"] == i and s.get(key) is not None]
            cols.append("–" if not ratios else
                        ", ".join(f"{r:.2f}" for r in ratios) + f" (median {statistics.median(ratios):.2f})")
        print(f"| {i} | " + " | ".join(cols) + " |")
