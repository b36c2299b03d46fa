#!/usr/bin/env bash
# Issue #22: blocking callers on virtual threads, and whether any driver pins them to their carrier
# (measured, not asserted in tests). Per driver one bench run on Java 25 with N virtual-thread
# callers (--virtual-threads) under a JFR recording that keeps every jdk.VirtualThreadPinned event
# (threshold 0 ms instead of the default 20 ms: a short pin counts too), then the recording's count of
# those events, the measured part's apart from the warm-up's. The warm-up (same callers, not recorded,
# its threads named bench-<driver>-warmup-*) takes the pins of a cold start: 1000 callers loading the
# same classes at once wait for the class-loading lock pinned (class loading cannot unmount), and the
# first virtual thread blocking on a socket makes the others wait, pinned, for the JDK's poller to start.
# One line per driver: ops/s, errors, callers still blocked after the run (a stalled driver; the run
# is bounded, see io.dyno.loadgen.bench.Callers), pinned events in the measured part and in the warm-up.
# Fails when the default (multiplexed) transport, driver dyno, pinned a virtual thread even once in
# the measured part, or when a run failed; the other drivers' pins are reported only.
#   scripts/bench-virtual-threads.sh [--drivers dyno,dyno-pooled,jedis-pools,lettuce] [--virtual-threads 1000]
#       [--duration 10s] [--warmup 3s] [--target companion] [--keys 20000] [--out <dir>]
# Environment: DYNO_JAVA25_HOME  the JDK the bench runs on (default /usr/lib/jvm/temurin-25-jdk-amd64);
#   the build itself runs on the default JDK 17. DYNO_TARGET as for scripts/loadgen.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

DRIVERS=dyno,dyno-pooled,jedis-pools,lettuce VT=1000 DURATION=10s WARMUP=3s TARGET=companion KEYS=20000
OUT="${TMPDIR:-/tmp}/dyno-bench-reports/virtual-threads"
while [ $# -gt 0 ]; do
  case "$1" in
    --drivers) DRIVERS="$2"; shift 2 ;;
    --virtual-threads) VT="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --target) TARGET="$2"; shift 2 ;;
    --keys) KEYS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    *) echo "bench-virtual-threads: unknown option $1" >&2; exit 2 ;;
  esac
done
J25="${DYNO_JAVA25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
[ -x "$J25/bin/java" ] && [ -x "$J25/bin/jfr" ] \
  || { echo "bench-virtual-threads: no JDK 25 at $J25 (set DYNO_JAVA25_HOME)" >&2; exit 2; }
mkdir -p "$OUT"

bash scripts/loadgen.sh build
echo "[bench-virtual-threads] $("$J25/bin/java" -version 2>&1 | head -1); $VT virtual threads, $WARMUP warm-up and" \
  "$DURATION per driver, target $TARGET"
rows=() failed=0
for driver in ${DRIVERS//,/ }; do
  log="$OUT/$driver.log" jfr="$OUT/$driver.jfr"
  rm -f "$jfr"
  echo "[bench-virtual-threads] $driver (log $log)"
  rc=0
  # The run bounds itself (duration, then a grace period for blocked callers); the timeout is for a hang elsewhere.
  PATH="$J25/bin:$PATH" DYNO_LOADGEN_NO_BUILD=1 \
    DYNO_JAVA_OPTS="-XX:StartFlightRecording:filename=$jfr,dumponexit=true,jdk.VirtualThreadPinned#threshold=0ms" \
    timeout --kill-after=10 300 bash scripts/loadgen.sh bench --target "$TARGET" --driver "$driver" --duration "$DURATION" \
    --warmup "$WARMUP" --virtual-threads "$VT" --keys "$KEYS" --report-dir "$OUT" --report-name "vt-$driver" > "$log" 2>&1 || rc=$?
  summary=$(grep -m1 '^== ' "$log" || true)
  if [ "$rc" -ne 0 ] || [ -z "$summary" ]; then
    tail -20 "$log" | sed 's/^/    /'
    rows+=("$(printf '%-12s %s' "$driver" "run failed (exit $rc; 124 = timed out)")")
    failed=1
    continue
  fi
  grep -E '^   (callers|latency p50)|callers still blocked' "$log" | sed 's/^ */    /'
  ops=$(sed -E 's/.*, ([0-9]+) ops\/s, .*/\1/' <<< "$summary")
  errors=$(sed -E 's/.*errors ([0-9]+).*/\1/' <<< "$summary")
  blocked=$(grep -m1 -oE '[0-9]+ of [0-9]+ callers still blocked' "$log" | cut -d' ' -f1 || true)
  if [ ! -s "$jfr" ]; then
    rows+=("$(printf '%-12s %s' "$driver" "no JFR recording at $jfr")")
    failed=1
    continue
  fi
  events=$("$J25/bin/jfr" print --events jdk.VirtualThreadPinned --stack-depth 16 "$jfr")
  threads=$(grep -E '^ *eventThread = ' <<< "$events" || true)
  warm=$(printf '%s' "$threads" | grep -c -- '-warmup-' || true)
  pinned=$(printf '%s' "$threads" | grep -vc -- '-warmup-' || true)
  # One line per pinned event: thread, how long, why, and the first frame outside the JDK.
  awk '/^jdk.VirtualThreadPinned/ { op = why = th = dur = top = app = ""; st = 0 }
    / duration = / { sub(/.*= /, ""); dur = $0 }
    / blockingOperation = / { sub(/.*= /, ""); op = $0 }
    / pinnedReason = / { sub(/.*= /, ""); why = $0 }
    / eventThread = / { sub(/.*= "/, ""); sub(/".*/, ""); th = $0 }
    /stackTrace = \[/ { st = 1; next }
    st && /line:|\)$/ { f = $0; sub(/^ */, "", f); if (top == "") top = f; if (app == "" && f !~ /^(java|jdk|sun)\./) app = f }
    /^}/ { printf "    pinned: %s, %s, %s, %s, at %s\n", th, dur, op, why, (app != "" ? app : top) }' <<< "$events" | head -12
  [ "$driver" != dyno ] || [ "$pinned" -eq 0 ] || failed=1
  rows+=("$(printf '%-12s %10s %8s %16s %18s %16s' "$driver" "$ops" "$errors" "${blocked:-0} of $VT" "$pinned" "$warm")")
done
echo
echo "[bench-virtual-threads] $VT virtual-thread callers, $DURATION after $WARMUP of warm-up, target $TARGET" \
  "(JFR: $OUT/<driver>.jfr)"
printf '%-12s %10s %8s %16s %18s %16s\n' driver ops/s errors "blocked at end" "pinned (measured)" "pinned (warm-up)"
printf '%s\n' "${rows[@]}"
exit "$failed"
