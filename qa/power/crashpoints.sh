#!/usr/bin/env bash
# Every crash state of a long trace of the mutable store (issue 70, design note §4): runs
# MutableCrashPointTest with a 2,000-step workload and recovers every distinct image instead of
# CI's sample of 150. Prints the test's summary lines (states, distinct images, states a second,
# violations, load); the trace of a failing run is saved under index-mutable/target/crashpoints/.
# Usage: qa/power/crashpoints.sh [--steps N] [--seed S]   (run from anywhere; needs the modules
#        installed in the Maven repository, e.g. ./mvnw install -DskipTests once)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
STEPS=2000 SEED=""
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) STEPS=$2; shift 2;;
    --seed) SEED="-Dtests.seed=$2"; shift 2;;
    *) echo "unknown argument $1" >&2; exit 2;;
  esac
done
cd "$ROOT"
./mvnw -B -q ${MAVEN_OPTS_EXTRA:-} -pl index-mutable test \
  -Dtest='MutableCrashPointTest#crashStatesOfASeededTraceRecoverToAReferenceState' \
  -Dsurefire.failIfNoSpecifiedTests=false -Dspotless.check.skip=true \
  -Dcrashpoints.steps="$STEPS" -Dcrashpoints.all=true $SEED \
  || status=$?
grep -h '^\[seed\]\|^\[crashpoints\]' \
  index-mutable/target/surefire-reports/org.searchlab.mutable.MutableCrashPointTest-output.txt
exit "${status:-0}"
