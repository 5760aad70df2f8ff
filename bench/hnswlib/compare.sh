#!/usr/bin/env bash
# hnsw-bench (the mutable graph, Lucene's single segment) and hnswlib, back to back on the same
# vectors, then one table. Needs python3 with hnswlib and numpy; HNSWLIB_PYTHON names another
# interpreter (a venv: python3 -m venv /tmp/hv && /tmp/hv/bin/pip install hnswlib numpy).
#
#   [ROUNDS=3] bench/hnswlib/compare.sh data/debian/vectors.fvecs 62665 1000 [out.jsonl]
#
# ROUNDS (default 1) repeats the pair, alternating the implementations, each round building its
# graphs again; the table gives the median over rounds and the range, since one pass on a shared
# machine moves by 20% from run to run. Every JSON line gets its round number.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
vectors="$1" docs="${2:-62665}" queries="${3:-1000}" out="${4:-hnswlib-compare.jsonl}"
efs="${EFS:-10,16,24,32,48,64,96,128,192,256}"
py="${HNSWLIB_PYTHON:-python3}"
rounds="${ROUNDS:-1}"
# Both sides on transparent huge pages, where the kernel gives them on request: the launcher asks
# for them for the Java heap, numpy asks for them for its arrays, and glibc's malloc (which holds
# hnswlib's index) asks only with this tunable (glibc 2.35 and later; older ones ignore it).
# HNSWLIB_GLIBC_TUNABLES= (empty) runs hnswlib's index on 4 KB pages.
tunables="${HNSWLIB_GLIBC_TUNABLES-glibc.malloc.hugetlb=1}"
tag() { "$py" -c 'import json,sys
for line in sys.stdin:
    if line.startswith("{"):
        r = json.loads(line); r["round"] = int(sys.argv[1]); print(json.dumps(r), flush=True)' "$1"; }
: >"$out"
for round in $(seq 1 "$rounds"); do
  "$root/bin/searchlab" hnsw-bench --vectors "$vectors" --docs "$docs" --queries "$queries" \
    --ef "$efs" --impl "${IMPLS:-mutable,lucene}" | tag "$round" | tee -a "$out"
  GLIBC_TUNABLES="$tunables" "$py" "$here/hnswlib_bench.py" --vectors "$vectors" --docs "$docs" --queries "$queries" \
    --ef "$efs" | tag "$round" | tee -a "$out"
done
"$py" "$here/table.py" "$out"
