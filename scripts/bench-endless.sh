#!/usr/bin/env bash
# An endless load-generator run against REAL Dynomite, driven from outside through its REST API
# (README "Endless runs"): 3 racks x 2 nodes, 8 mixed threads 80/20, 1 KiB values; the read rate
# changed three times and one node killed and revived; the heap after a full GC measured after the
# first minute and at the end (POST /heap); then POST /stop, which writes the report.
#   scripts/bench-endless.sh [--minutes 10] [--out bench-reports] [--name endless]
# Timings (seconds into the measured run, scaled to --minutes; 10 min shown):
#   60 heap 1 · 120 readRate 3000 · 240 readRate 1000 · 300-360 rack1[1] killed · 420 readRate 2500 · 600 heap 2, stop
# The threads are mixed (each picks GET or SET), so the write limit also bounds the reads: at 80/20
# and writeRate 1000, reads stop at about 4000/s; every read step here stays below that.
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES=10 OUT=bench-reports NAME=endless
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) MINUTES="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --name) NAME="$2"; shift 2 ;;
    *) echo "bench-endless: unknown option $1" >&2; exit 2 ;;
  esac
done
S=$((MINUTES * 60))
at() { echo $(( $1 * S / 600 )); }
mkdir -p "$OUT"
LOG="$OUT/$NAME.log"
bash scripts/loadgen.sh build
DYNO_LOADGEN_NO_BUILD=1 DYNO_JAVA_OPTS="${DYNO_JAVA_OPTS:--Xmx512m}" bash scripts/loadgen.sh bench --target dynomite \
  --threads 8 --readers 0 --writers 0 --readPercent 80 --valueSize 1024 --keys 20000 --readRate 2000 --writeRate 1000 \
  --control-port 0 --report-dir "$OUT" --report-name "$NAME" \
  --fault "kill:rack1:1@$(at 300)s-$(at 360)s" >"$LOG" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
URL=""
for _ in $(seq 1 600); do   # up to 5 minutes for the build and the cluster to come up
  URL="$(grep -m1 -o 'console: http://127.0.0.1:[0-9]*' "$LOG" | sed 's/console: //' || true)"
  [ -n "$URL" ] && break
  kill -0 $PID 2>/dev/null || { echo "bench-endless: the bench exited early:"; tail -30 "$LOG"; exit 1; }
  sleep 0.5
done
[ -n "$URL" ] || { echo "bench-endless: no console URL in $LOG"; exit 1; }
echo "[bench-endless] console $URL (log $LOG)"
t_now() { curl -s "$URL/status?since=1e18" | python3 -c 'import json,sys; print(int(json.load(sys.stdin).get("t",0)))'; }
wait_t() { while [ "$(t_now)" -lt "$1" ]; do sleep 1; done; }
heap() { curl -s -X POST "$URL/heap" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["heapUsedBytes"])'; }
wait_t "$(at 60)";  H1=$(heap); echo "[bench-endless] t=$(t_now)s heap after full GC: $H1 bytes"
wait_t "$(at 120)"; curl -s -X POST "$URL/set?readRate=3000" >/dev/null; echo "[bench-endless] t=$(t_now)s readRate=3000"
wait_t "$(at 240)"; curl -s -X POST "$URL/set?readRate=1000" >/dev/null; echo "[bench-endless] t=$(t_now)s readRate=1000"
wait_t "$(at 420)"; curl -s -X POST "$URL/set?readRate=2500" >/dev/null; echo "[bench-endless] t=$(t_now)s readRate=2500"
wait_t "$(at 600)"; H2=$(heap); echo "[bench-endless] t=$(t_now)s heap after full GC: $H2 bytes"
curl -s -X POST "$URL/stop" >/dev/null
wait $PID || true
trap - EXIT
grep -E '^== |^report:|\[faults\]' "$LOG" || true
python3 - "$H1" "$H2" <<'PY'
import sys
h1, h2 = int(sys.argv[1]), int(sys.argv[2])
print(f"[bench-endless] heap after minute 1: {h1/1e6:.1f} MB, at the end: {h2/1e6:.1f} MB, change {100*(h2-h1)/h1:+.1f} %"
      f" ({'within' if abs(h2-h1) <= 0.1*h1 else 'NOT within'} 10 %)")
PY
