#!/usr/bin/env bash
# The acceptance run of issue 70's power-loss cycles: each store's power-loss cycle test
# (MutablePowerLossCycleTest, SegmentedPowerLossCycleTest; JUnit tag "power") for N seeds with C
# power cuts each (default 200 x 20), through the seed runner, then the totals per store of every
# run's summary line: cuts, acknowledged operations, id checks and violations.
# Usage: qa/power/run-cycles.sh [--store mutable|segmented|both] [--seeds N] [--cuts C]
#                               [--seconds S] [--per-jvm K] [--seed N]
#   --seconds S   starts no new seed after S seconds; --seed N runs that session seed once
# Summaries are appended to qa/power/target/cycles-<time>.txt; a cut whose check fails leaves its
# image in qa/power/target/failures/. Exits 1 at the first failing seed, as the seed runner does.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
STORE=both SEEDS=200 CUTS=20 SECONDS_LIMIT=0 PER_JVM=20 ONLY_SEED=""
while [ $# -gt 0 ]; do
  case "$1" in
    --store) STORE=$2; shift 2;;
    --seeds) SEEDS=$2; shift 2;;
    --cuts) CUTS=$2; shift 2;;
    --seconds) SECONDS_LIMIT=$2; shift 2;;
    --per-jvm) PER_JVM=$2; shift 2;;
    --seed) ONLY_SEED=$2; shift 2;;
    *) echo "unknown option $1 (see the comment at the top of $0)" >&2; exit 2;;
  esac
done
case "$STORE" in
  mutable) CLASSES=org.searchlab.mutable.MutablePowerLossCycleTest;;
  segmented) CLASSES=org.searchlab.segmented.SegmentedPowerLossCycleTest;;
  both) CLASSES="org.searchlab.mutable.MutablePowerLossCycleTest org.searchlab.segmented.SegmentedPowerLossCycleTest";;
  *) echo "--store is mutable, segmented or both, not $STORE" >&2; exit 2;;
esac
OUT="$ROOT/qa/power/target"
mkdir -p "$OUT"
REPORT="$OUT/cycles-$(date -u +%Y%m%dT%H%M%SZ).txt"
args=(--tag power --classes "$CLASSES" --count "$SEEDS" --per-jvm "$PER_JVM" --times)
[ "$SECONDS_LIMIT" -gt 0 ] && args+=(--seconds "$SECONDS_LIMIT")
[ -n "$ONLY_SEED" ] && args+=(--seed "$ONLY_SEED")
rc=0
start=$SECONDS
SEEDS_JVM_FLAGS="-Dpower.cuts=$CUTS -Dpower.report=$REPORT -Dpower.failures=$OUT/failures" \
  "$ROOT/qa/seeds/run-restart-seeds.sh" "${args[@]}" || rc=$?
echo "summaries: $REPORT; $((SECONDS - start)) s in all, load now: $(cut -d' ' -f1-3 /proc/loadavg)"
# One line per store: the sums of its runs' "[power-cycles] seed=S store=... key=value ..." lines.
awk '/^\[power-cycles\]/ {
  delete v
  for (i = 2; i <= NF; i++) { n = index($i, "="); if (n) v[substr($i, 1, n - 1)] = substr($i, n + 1) }
  s = v["store"]; runs[s]++
  for (k in v) if (k != "store" && k != "seed" && k != "kinds" && v[k] ~ /^[0-9]+$/) sum[s, k] += v[k]
}
END {
  for (s in runs)
    printf "%s: %d seeds, %d cuts, %d operations acknowledged, %d id checks, lost %d, resurrected %d, torn %d, search mismatches %d, %d flushes, %d cuts inside a flush\n",
      s, runs[s], sum[s, "cuts"], sum[s, "acknowledged"], sum[s, "checked"], sum[s, "lost"],
      sum[s, "resurrected"], sum[s, "torn"], sum[s, "search_mismatches"], sum[s, "flushes"],
      sum[s, "flushes_cut"]
}' "$REPORT" 2>/dev/null || true
exit $rc
