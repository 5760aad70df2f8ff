#!/usr/bin/env bash
# Runs the randomized restart tests once per fresh random seed, each seed in its own JVM (TestSeeds
# reads -Dtests.seed once per JVM). Stops at the first failing seed and prints how to reproduce it.
# Usage: qa/seeds/run-restart-seeds.sh [--count N] [--seconds S] [--classes "C1 C2 ..."] [--seed N]
#   --count N     seeds to run (default 200); --seconds S stops starting new seeds after S seconds
#   --seed N      run exactly this session seed once (reproduce a failure)
# Results go to stdout and are appended to qa/seeds/target/seeds.log (one line a seed).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$ROOT/bin/find-java"
JAVA_HOME=$(searchlab_find_java) || exit 1
JAVA="$JAVA_HOME/bin/java"
OUT="$ROOT/qa/seeds/target"
mkdir -p "$OUT"
COUNT=200 SECONDS_LIMIT=0 ONLY_SEED=""
CLASSES="org.searchlab.mutable.MutableIndexTest org.searchlab.mutable.MutableIndexCrashTest
org.searchlab.mutable.MutableIndexFaultTest org.searchlab.mutable.MutableIndexConformanceTest
org.searchlab.segmented.StoreBehaviourTest org.searchlab.segmented.SegmentedDurabilityTest
org.searchlab.segmented.CrashSafetyTest org.searchlab.segmented.DefaultConformanceTest
org.searchlab.segmented.SegmentPerBatchConformanceTest org.searchlab.segmented.ConcurrentSearchConformanceTest
org.searchlab.core.wal.WriteAheadLogTest org.searchlab.core.wal.WalFaultTest"
while [ $# -gt 0 ]; do
  case "$1" in
    --count) COUNT=$2; shift 2;;
    --seconds) SECONDS_LIMIT=$2; shift 2;;
    --classes) CLASSES=$2; shift 2;;
    --seed) ONLY_SEED=$2; COUNT=1; shift 2;;
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

# 2. One JVM a seed, with the flags surefire gives the tests.
random_seed() { echo $(( 0x$(od -An -tx8 -N8 /dev/urandom | tr -d ' \n') )); }
start=$SECONDS passed=0
for ((i = 1; i <= COUNT; i++)); do
  if [ "$SECONDS_LIMIT" -gt 0 ] && [ $((SECONDS - start)) -ge "$SECONDS_LIMIT" ]; then break; fi
  seed=${ONLY_SEED:-$(random_seed)}
  t0=$SECONDS
  log="$OUT/seed-$seed.log"
  # shellcheck disable=SC2086
  if (cd "$OUT" && "$JAVA" --add-modules jdk.incubator.vector -ea -Djava.awt.headless=true -Xmx2g \
        -Dsearchlab.java="$JAVA" -Dsearchlab.jvm.flags="--add-modules jdk.incubator.vector -ea -Djava.awt.headless=true" \
        -Dtests.seed="$seed" -cp "$OUT:$CP" SeedRun $CLASSES) > "$log" 2>&1; then
    passed=$((passed + 1))
    line="seed $seed ok $(grep '^\[summary\]' "$log" | sed 's/\[summary\] //') $((SECONDS - t0))s"
    echo "$line" | tee -a "$OUT/seeds.log"
    rm -f "$log"
  else
    line="seed $seed FAILED $(grep '^\[summary\]' "$log" | sed 's/\[summary\] //') $((SECONDS - t0))s log=$log"
    echo "$line" | tee -a "$OUT/seeds.log"
    grep -m5 -E 'JUnit Jupiter:|=> ' "$log" || tail -20 "$log"
    echo "reproduce: $0 --seed $seed   (or -Dtests.seed=$seed with Maven)"
    exit 1
  fi
done
echo "$passed seeds in a row passed"
