#!/usr/bin/env bash
# The overload check of issue 17 (a command, not a unit test): starts `searchlab serve` with a
# 512 MB heap on a free loopback port, loads DOCS documents, runs CLIENTS closed-loop clients for
# SECONDS (OverloadCheck.java), then checks that only 200 and 429 came back, that the server is
# still alive and answers /health, and that its log has no OutOfMemoryError. Run it exclusively:
#   /work/tools/cpu bench bench/overload/overload-check.sh [CLIENTS] [SECONDS] [STORE]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CLIENTS=${1:-256}
SECONDS_=${2:-60}
STORE=${3:-segmented}
DOCS=${DOCS:-20000}
SEED=${SEED:-17}
# shellcheck source=bin/find-java
. "$ROOT/bin/find-java"
JAVA_HOME=$(searchlab_find_java)
WORK=$(mktemp -d)
PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
LOG="$WORK/server.log"
echo "overload-check: store=$STORE clients=$CLIENTS seconds=$SECONDS_ docs=$DOCS port=$PORT log=$LOG"
SEARCHLAB_JAVA_OPTS="-Xmx512m -Xms512m" "$ROOT/bin/searchlab" serve --store "$STORE" \
  --data-dir "$WORK/data" --port "$PORT" --dims 8 >"$LOG" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break
  sleep 1
done
python3 - "$PORT" "$DOCS" "$SEED" <<'PY'
import json, random, sys, urllib.request
port, docs, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(seed)
words = ["linux", "kernel", "library", "python", "tools", "server", "network", "data",
         "graphics", "audio", "game", "font", "perl", "java", "documentation", "shell"]
for start in range(0, docs, 2000):
    lines = []
    for i in range(start, min(docs, start + 2000)):
        lines.append(json.dumps({"index": {"_id": f"d{i}"}}))
        lines.append(json.dumps({"title": " ".join(rnd.choice(words) for _ in range(3)),
                                 "description": " ".join(rnd.choice(words) for _ in range(20)),
                                 "price": rnd.randrange(10000), "category": f"c{i % 20}"}))
    req = urllib.request.Request(f"http://127.0.0.1:{port}/product/_bulk",
                                 data=("\n".join(lines) + "\n").encode(),
                                 headers={"Content-Type": "application/x-ndjson"})
    with urllib.request.urlopen(req, timeout=120) as r:
        assert not json.load(r)["errors"]
urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/product/_refresh",
                                              method="POST"), timeout=120).read()
print(f"loaded {docs} documents")
PY
set +e
"$JAVA_HOME/bin/java" "$ROOT/bench/overload/OverloadCheck.java" "$PORT" "$CLIENTS" "$SECONDS_" "$SEED"
RESULT=$?
set -e
if ! kill -0 "$SERVER" 2>/dev/null; then
  echo "overload-check: the server died"; RESULT=1
elif ! curl -sf "http://127.0.0.1:$PORT/health" >/dev/null; then
  echo "overload-check: /health does not answer"; RESULT=1
fi
if grep -q OutOfMemoryError "$LOG"; then
  echo "overload-check: OutOfMemoryError in $LOG"; RESULT=1
fi
echo "overload-check: server log lines: $(wc -l <"$LOG"), 500s logged: $(grep -c ' 500 ' "$LOG" || true)"
exit $RESULT
