#!/usr/bin/env bash
# hnsw-bench (the mutable graph, Lucene's single segment) and hnswlib, back to back on the same
# vectors, then one table. Needs python3 with hnswlib and numpy; HNSWLIB_PYTHON names another
# interpreter (a venv: python3 -m venv /tmp/hv && /tmp/hv/bin/pip install hnswlib numpy).
#
#   bench/hnswlib/compare.sh data/debian/vectors.fvecs 62665 1000 [out.jsonl]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
vectors="$1" docs="${2:-62665}" queries="${3:-1000}" out="${4:-hnswlib-compare.jsonl}"
efs="${EFS:-10,16,24,32,48,64,96,128,192,256}"
py="${HNSWLIB_PYTHON:-python3}"
: >"$out"
"$root/bin/searchlab" hnsw-bench --vectors "$vectors" --docs "$docs" --queries "$queries" \
  --ef "$efs" --impl "${IMPLS:-mutable,lucene}" | grep '^{' | tee -a "$out"
"$py" "$here/hnswlib_bench.py" --vectors "$vectors" --docs "$docs" --queries "$queries" \
  --ef "$efs" | tee -a "$out"
"$py" "$here/table.py" "$out"
