#!/usr/bin/env python3
"""Markdown tables from compare.sh's JSON lines: recall and QPS per ef, then QPS at recall."""
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.startswith("{")]
impls = list(dict.fromkeys(r["impl"] for r in rows))
per = [r for r in rows if not r.get("summary")]
efs = sorted({r["ef"] for r in per})
print("| ef | " + " | ".join(f"{i} recall → QPS" for i in impls) + " |")
print("|---:|" + "---|" * len(impls))
for ef in efs:
    cells = []
    for i in impls:
        r = next((x for x in per if x["impl"] == i and x["ef"] == ef), None)
        extra = f" ({r['nsPerVisited']:.0f} ns/visit)" if r and "nsPerVisited" in r else ""
        cells.append(f"{r['recallAt10']:.3f} → {r['qps']:,.0f}{extra}" if r else "–")
    print(f"| {ef} | " + " | ".join(cells) + " |")
print()
print("| impl | QPS at recall 0.95 | QPS at recall 0.99 | build s (1 thread) |")
print("|---|---:|---:|---:|")
for s in (r for r in rows if r.get("summary")):
    f = lambda v: "–" if v is None else f"{v:,.0f}"
    print(f"| {s['impl']} | {f(s['qpsAtRecall095'])} | {f(s['qpsAtRecall099'])} | {s['buildSeconds']} |")
