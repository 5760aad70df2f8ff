#!/usr/bin/env bash
# Runs the randomized restart tests (JUnit tag "restart") once per fresh random session seed,
# several seeds in one JVM (SeedRun sets tests.seed before each round; TestSeeds reads it on
# every call). Stops at the first failing seed and prints how to reproduce it.
# Usage: qa/seeds/run-restart-seeds.sh [--count N] [--per-jvm K] [--seconds S] [--classes "C1 ..."]
#                                      [--tag T|--all] [--seed N] [--times]
#   --count N     seeds to run (default 200); --seconds S starts no new seed after S seconds
#   --per-jvm K   seeds per JVM (default 20): a fresh JVM every K seeds bounds what one run leaks
#   --tag T       only tests tagged T (default restart); --all: every test of the classes
#   --seed N      run exactly this session seed once (reproduce a failure)
#   --times       print each test's mean time per seed
# Results go to stdout and are appended to qa/seeds/target/seeds.log (one line a seed).
# SEEDS_JVM_FLAGS (environment) adds flags to the test JVMs, e.g. "-Dpower.cuts=20".
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$ROOT/bin/find-java"
JAVA_HOME=$(searchlab_find_java) || exit 1
JAVA="$JAVA_HOME/bin/java"
OUT="$ROOT/qa/seeds/target"
mkdir -p "$OUT"
COUNT=200 PER_JVM=20 SECONDS_LIMIT=0 ONLY_SEED="" TAG=restart TIMES=""
CLASSES="org.searchlab.mutable.MutableIndexTest org.searchlab.mutable.MutableIndexCrashTest
org.searchlab.mutable.MutableIndexFaultTest org.searchlab.mutable.MutableIndexConformanceTest
org.searchlab.segmented.StoreBehaviourTest org.searchlab.segmented.SegmentedDurabilityTest
org.searchlab.segmented.CrashSafetyTest org.searchlab.segmented.DefaultConformanceTest
org.searchlab.segmented.SegmentPerBatchConformanceTest org.searchlab.segmented.ConcurrentSearchConformanceTest
org.searchlab.segmented.ConcurrentSearchTest org.searchlab.testing.ExactIndexConformanceTest
org.searchlab.core.wal.WriteAheadLogTest org.searchlab.core.wal.WalFaultTest
org.searchlab.core.wal.WalPowerLossTest org.searchlab.mutable.MutablePowerLossCycleTest
org.searchlab.segmented.SegmentedPowerLossCycleTest"
while [ $# -gt 0 ]; do
  case "$1" in
    --count) COUNT=$2; shift 2;;
    --seconds) SECONDS_LIMIT=$2; shift 2;;
    --classes) CLASSES=$2; shift 2;;
    --seed) ONLY_SEED=$2; COUNT=1; shift 2;;
    --per-jvm) PER_JVM=$2; shift 2;;
    --tag) TAG=$2; shift 2;;
    --all) TAG=""; shift;;
    --times) TIMES=--times; shift;;
    *) echo "unknown option $1 (see the comment at the top of $0)" >&2; exit 2;;
  esac
done

# 1. The class path, built once: the modules' classes and test classes, and the external jars of
#    the qa module's test scope (it depends on both stores, the test framework and the launcher).
MODULES="core test-framework index-mutable index-segmented qa"
STAMP="$OUT/.compiled"
if [ ! -f "$STAMP" ] || [ -n "$(find "$ROOT" -path "$ROOT/.git" -prune -o -path '*/src/*' -newer "$STAMP" -name '*.java' -print -quit)" ]; then
  echo "compiling the modules and their tests..." >&2
  # One invocation: the reactor resolves the sibling modules to their target/ directories only
  # in a build that compiles them. Every module writes the file; qa, built last, writes it last.
  (cd "$ROOT" && JAVA_HOME=$JAVA_HOME ./mvnw -q -B -o -pl qa -am test-compile \
     dependency:build-classpath -Dspotless.check.skip=true -Dmdep.includeScope=test \
     -Dmdep.outputFile="$OUT/deps.txt") >&2
  touch "$STAMP"
fi
CP=""
for m in $MODULES; do CP="$CP:$ROOT/$m/target/classes:$ROOT/$m/target/test-classes"; done
# The sibling modules come from their target directories above, never from ~/.m2.
CP="${CP#:}:$(tr ':' '\n' < "$OUT/deps.txt" | grep -v '/org/searchlab/' | paste -sd: -)"
if [ ! -f "$OUT/SeedRun.class" ] || [ "$ROOT/qa/seeds/SeedRun.java" -nt "$OUT/SeedRun.class" ]; then
  "$JAVA_HOME/bin/javac" -d "$OUT" -cp "$CP" "$ROOT/qa/seeds/SeedRun.java"
fi

# 2. Up to PER_JVM seeds a JVM, with the flags surefire gives the tests; SeedRun prints a
#    "[round] N seed S ok|FAILED ..." line per seed and stops the JVM at the first failure.
start=$SECONDS passed=0 jvm=0
while [ "$passed" -lt "$COUNT" ]; do
  if [ "$SECONDS_LIMIT" -gt 0 ] && [ $((SECONDS - start)) -ge "$SECONDS_LIMIT" ]; then break; fi
  jvm=$((jvm + 1))
  rounds=$(( COUNT - passed < PER_JVM ? COUNT - passed : PER_JVM ))
  log="$OUT/jvm-$$-$jvm.log"
  args=(--rounds "$rounds")
  [ -n "$ONLY_SEED" ] && args+=(--seed "$ONLY_SEED")
  [ -n "$TAG" ] && args+=(--tag "$TAG")
  [ -n "$TIMES" ] && args+=("$TIMES")
  [ "$SECONDS_LIMIT" -gt 0 ] && args+=(--seconds $((SECONDS_LIMIT - (SECONDS - start))))
  rc=0
  # shellcheck disable=SC2086
  (cd "$OUT" && "$JAVA" --add-modules jdk.incubator.vector -ea -Djava.awt.headless=true -Xmx2g \
      ${SEEDS_JVM_FLAGS:-} \
      -Dsearchlab.java="$JAVA" -Dsearchlab.jvm.flags="--add-modules jdk.incubator.vector -ea -Djava.awt.headless=true" \
      -cp "$OUT:$CP" SeedRun "${args[@]}" $CLASSES) > "$log" 2>&1 || rc=$?
  while read -r _ round _ seed verdict rest; do
    echo "$(date -u +%FT%TZ) seed $seed $verdict $rest" | tee -a "$OUT/seeds.log"
    [ "$verdict" = ok ] && passed=$((passed + 1))
  done < <(grep '^\[round\]' "$log")
  grep '^\[time' "$log" || true
  if [ "$rc" -ne 0 ]; then
    failed=$(grep '^\[round\].* FAILED ' "$log" | awk '{print $4}')
    echo "JVM $jvm exited $rc; its output: $log" | tee -a "$OUT/seeds.log"
    grep -m5 -E 'JUnit Jupiter:|=> ' "$log" || tail -20 "$log"
    [ -n "$failed" ] && echo "reproduce: $0 --seed $failed   (or -Dtests.seed=$failed with Maven)"
    echo "$passed seeds in a row passed before the failure"
    exit 1
  fi
  rm -f "$log"
done
echo "$passed seeds in a row passed in $((SECONDS - start)) s"
