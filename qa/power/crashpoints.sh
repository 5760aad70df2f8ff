#!/usr/bin/env bash
# Every crash state of a long trace of one store (issue 70, design note §4): runs the store's
# crash-point test (MutableCrashPointTest or SegmentedCrashPointTest) with a longer workload and
# recovers every distinct image instead of CI's share. Prints the test's summary lines (states,
# distinct images, states checked, violations, wall and process CPU time, load); the trace of a
# failing run is saved under <module>/target/crashpoints/.
# Usage: qa/power/crashpoints.sh [--store mutable|segmented] [--steps N] [--seed S]
#        (run from anywhere; needs the modules installed in the Maven repository, e.g.
#        ./mvnw install -DskipTests once). Default: the mutable store, 2,000 steps.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
STORE=mutable STEPS=2000 SEED=""
while [ $# -gt 0 ]; do
  case "$1" in
    --store) STORE=$2; shift 2;;
    --steps) STEPS=$2; shift 2;;
    --seed) SEED="-Dtests.seed=$2"; shift 2;;
    *) echo "unknown argument $1" >&2; exit 2;;
  esac
done
case "$STORE" in
  mutable) MODULE=index-mutable CLASS=org.searchlab.mutable.MutableCrashPointTest;;
  segmented) MODULE=index-segmented CLASS=org.searchlab.segmented.SegmentedCrashPointTest;;
  *) echo "unknown store $STORE (mutable or segmented)" >&2; exit 2;;
esac
cd "$ROOT"
./mvnw -B -q ${MAVEN_OPTS_EXTRA:-} -pl "$MODULE" test \
  -Dtest="${CLASS##*.}#crashStatesOfASeededTraceRecoverToAReferenceState" \
  -Dsurefire.failIfNoSpecifiedTests=false -Dspotless.check.skip=true \
  -Dcrashpoints.steps="$STEPS" -Dcrashpoints.all=true $SEED \
  || status=$?
grep -h '^\[seed\]\|^\[crashpoints\]' "$MODULE/target/surefire-reports/$CLASS-output.txt"
exit "${status:-0}"
