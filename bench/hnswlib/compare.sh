#!/usr/bin/env bash
# hnsw-bench (the mutable graph, Lucene's single segment) and hnswlib on the same vectors, in
# lock-step, then one table. Needs python3 with hnswlib and numpy; HNSWLIB_PYTHON names another
# interpreter (a venv: python3 -m venv /tmp/hv && /tmp/hv/bin/pip install hnswlib numpy).
#
#   [ROUNDS=3] [PASSES=5] bench/hnswlib/compare.sh data/debian/vectors.fvecs 62665 1000 [out.jsonl]
#
# hnsw-bench starts hnswlib_bench.py --serve as its --peer: the three build one after another,
# then every ef gets PASSES timed passes of each, alternating, the peer idle while Java measures
# and the other way round. A pass on this shared machine moves by 20% from one minute to the next,
# so ratios come from passes seconds apart: per ef the median of the paired pass ratios, and at
# recall 0.95 and 0.99 the median over passes of the two curves interpolated pass by pass.
# ROUNDS (default 1) repeats the whole run, graphs built again; every JSON line gets its round.
# BUILD_ROUNDS (default 1) builds every implementation that many times, alternating, before the
# passes: the build ratio is then the median of ratios of builds seconds apart, not of one build
# each minutes apart (the first build in the JVM pays for JIT compilation; each is listed).
# HNSW_BENCH_FLAGS adds hnsw-bench options (word-split), e.g. "--float-storage heap".
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
peer="$(printf '%q ' env "GLIBC_TUNABLES=$tunables" "$py" "$here/hnswlib_bench.py" --serve \
  --vectors "$vectors" --docs "$docs" --queries "$queries")"
for round in $(seq 1 "$rounds"); do
  "$root/bin/searchlab" hnsw-bench --vectors "$vectors" --docs "$docs" --queries "$queries" \
    --ef "$efs" --impl "${IMPLS:-mutable,lucene}" --rounds "${PASSES:-5}" \
    --build-rounds "${BUILD_ROUNDS:-1}" ${HNSW_BENCH_FLAGS:-} --peer "$peer" \
    | tag "$round" | tee -a "$out"
done
"$py" "$here/table.py" "$out"
