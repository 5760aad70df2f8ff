#!/usr/bin/env bash
# Runs one store's server on a tiny tmpfs until the disk is full, then restarts it on the full disk
# and again after the file system grew, checking every acknowledged document each time.
# Needs root (mount). Usage: qa/tinyfs/run.sh mutable|segmented [SIZE_MB] [PORT]
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
STORE=${1:?mutable or segmented}
SIZE=${2:-16}
PORT=${3:-9301}
MNT=/mnt/searchlab-tiny-$STORE
OUT=${OUT:-$ROOT/qa/tinyfs/target/$STORE}
URL=http://127.0.0.1:$PORT
mkdir -p "$OUT" "$MNT"
umount "$MNT" 2>/dev/null
mount -t tmpfs -o size=${SIZE}m tmpfs "$MNT" || { echo "mount failed: run as root"; exit 2; }
DATA=$MNT/data

start() { # $1 = log name
  "$ROOT/bin/searchlab" serve --store "$STORE" --data-dir "$DATA" --dims 16 --port "$PORT" \
    > "$OUT/$1.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 120); do
    curl -s -o /dev/null "$URL/health" && return 0
    kill -0 $PID 2>/dev/null || { echo "server exited: $(tail -3 "$OUT/$1.log")"; return 1; }
    sleep 0.5
  done
  echo "server did not answer within 60 s"; return 1
}
stop() {
  kill -TERM $PID 2>/dev/null; wait $PID; echo "server exit code $? after SIGTERM"
  echo "  log tail: $(grep -E 'ERROR|WARN|fail|No space' "$OUT/$1.log" | tail -3 | cut -c1-400)"
}
stats() {
  echo "  /health: $(curl -s -w ' (HTTP %{http_code})' "$URL/health")"
  echo "  background_errors: $(curl -s "$URL/metrics" | grep -i 'background_errors' | head -2 | tr '\n' ' ')"
  echo "  disk: $(df -k "$MNT" | tail -1 | awk '{print $3 " KiB used of " $2}')"
}

echo "== $STORE on a ${SIZE} MiB tmpfs ($MNT)"
start serve1 || exit 1
python3 "$ROOT/qa/tinyfs/fill.py" fill --url "$URL" --journal "$OUT/acked.txt"
stats
stop serve1

echo "== restart on the full disk"
if start serve2; then
  stats
  python3 "$ROOT/qa/tinyfs/fill.py" check --url "$URL" --journal "$OUT/acked.txt"
  stop serve2
else
  echo "  (the server refused to start on the full disk)"; grep -m3 -iE 'error|exception|space' "$OUT/serve2.log" | cut -c1-400
fi

echo "== the file system grows to $((SIZE * 4)) MiB; restart"
mount -o remount,size=$((SIZE * 4))m "$MNT"
start serve3 || exit 1
stats
python3 "$ROOT/qa/tinyfs/fill.py" check --url "$URL" --journal "$OUT/acked.txt"
rc=$?
d='{"id":"after-growth","title":"t","description":"d","category":"a","price":1,"average_rating":1.0}'
echo "  a put after growth: $(curl -s -w ' (HTTP %{http_code})' -X PUT -H 'Content-Type: application/json' -d "$d" "$URL/product/_doc/after-growth")"
stop serve3
umount "$MNT"
exit $rc
