#!/usr/bin/env bash
# Issue #11, must-show 3, against REAL Dynomite (measured, never asserted): one node frozen (SIGSTOP)
# for 10 s under load — failed reads, the longest read against the deadline, read p99.9 against the
# same variant's healthy run.
#   3 racks x 2 nodes of real dynomite + redis-server, 40 threads, 80/20 GET/SET, 1 KiB values,
#   request deadline 500 ms; client JVM on CPU 0, servers on CPU 1 (as bench-dynomite.sh's run 2).
#   Per variant two runs of 20 s (after 5 s of warm-up), each on a fresh cluster: healthy, and with
#   rack1[0] (the local rack's first node, owner of half the local keys) SIGSTOPped from 5 s to 15 s.
#   Variants: dyno-pooled (pooled sockets), dyno (the default: multiplexed, no hedging), dyno with
#   hedged reads after 10 ms (about the healthy p99.9: a healthy cluster hedges about one read in a thousand).
# Needs the dynomite binary, redis-server, taskset and at least 2 CPUs.
#   scripts/bench-frozen.sh [--duration 20s] [--warmup 5s] [--deadline 500ms] [--hedge after:10] [--out bench-reports]
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=20s WARMUP=5s DEADLINE=500ms HEDGE=after:10 OUT=bench-reports
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --deadline) DEADLINE="$2"; shift 2 ;;
    --hedge) HEDGE="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    *) echo "bench-frozen: unknown option $1" >&2; exit 2 ;;
  esac
done
[ "$(nproc)" -ge 2 ] || { echo "bench-frozen: needs at least 2 CPUs (nproc: $(nproc))" >&2; exit 2; }
command -v taskset >/dev/null || { echo "bench-frozen: taskset (util-linux) is not on the PATH" >&2; exit 2; }

bash scripts/loadgen.sh build
LOGS=$(mktemp -d)
COMMON=(--target dynomite --threads 40 --readers 0 --writers 0 --readPercent 80 --valueSize 1024 --keys 100000
  --duration "$DURATION" --warmup "$WARMUP" --deadline "$DEADLINE" --server-cpus 1 --report-dir "$OUT")
run() { # name driver hedge fault
  local name="$1" driver="$2" hedge="$3" fault="$4" extra=()
  [ -n "$fault" ] && extra=(--fault "$fault")
  echo "[bench-frozen] $name"
  DYNO_LOADGEN_NO_BUILD=1 DYNO_JAVA_PREFIX="taskset -c 0" DYNO_JAVA_OPTS="-XX:+UseG1GC" bash scripts/loadgen.sh bench \
    "${COMMON[@]}" --driver "$driver" --hedge "$hedge" --report-name "frozen-$name" "${extra[@]}" \
    > "$LOGS/$name.log" 2>&1 || { tail -30 "$LOGS/$name.log"; exit 1; }
  grep -E "^== |latency p50|server CPU|hedged reads|^\[faults\]" "$LOGS/$name.log" | sed 's/^/    /'
}
# The summary line of a run: errors, read p99.9 and read max in ms.
figures() {
  local log="$LOGS/$1.log"
  local errors p999 max
  errors=$(grep -E "^== " "$log" | sed -E 's/.*errors ([0-9]+).*/\1/')
  p999=$(grep -E "latency p50" "$log" | sed -E 's/.*read p99 [^,]*, p99\.9 ([0-9.]+)ms.*/\1/')
  max=$(grep -E "latency p50" "$log" | sed -E 's/.*read p99 [^,]*, p99\.9 [^,]*, max ([0-9.]+)ms.*/\1/')
  echo "$errors $p999 $max"
}
VARIANTS=("dyno-pooled:dyno-pooled:off" "dyno:dyno:off" "dyno-hedged:dyno:$HEDGE")
FROM=$(( ${DURATION%s} / 4 )); TO=$(( FROM + 10 ))
for v in "${VARIANTS[@]}"; do
  IFS=: read -r name driver hedge rest <<< "$v"; [ -n "${rest:-}" ] && hedge="$hedge:$rest"
  run "$name-healthy" "$driver" "$hedge" ""
  run "$name-frozen" "$driver" "$hedge" "pause:rack1:0@${FROM}s-${TO}s"
done
echo
echo "[bench-frozen] rack1[0] SIGSTOPped ${FROM}-${TO} s of ${DURATION}; deadline $DEADLINE; errors = failed operations (reads and writes)"
printf '%-18s %8s %14s %12s %8s %14s %12s %10s\n' variant "errors" "read p99.9 ms" "read max ms" "errors" "read p99.9 ms" "read max ms" "p99.9 x"
printf '%-18s %8s %14s %12s %8s %14s %12s %10s\n' "" healthy healthy healthy frozen frozen frozen "frozen/healthy"
for v in "${VARIANTS[@]}"; do
  name="${v%%:*}"
  read -r he hp hm <<< "$(figures "$name-healthy")"
  read -r fe fp fm <<< "$(figures "$name-frozen")"
  ratio=$(awk -v a="$fp" -v b="$hp" 'BEGIN { printf (b > 0 ? "%.2f" : "n/a"), a / b }')
  printf '%-18s %8s %14s %12s %8s %14s %12s %10s\n' "$name" "$he" "$hp" "$hm" "$fe" "$fp" "$fm" "$ratio"
done
rm -rf "$LOGS"
