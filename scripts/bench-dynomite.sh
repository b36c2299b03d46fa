#!/usr/bin/env bash
# The README's performance comparison against REAL Dynomite (measured, never asserted):
#   1. the load generator, 3 racks x 2 nodes of real dynomite + redis-server processes, 40 threads,
#      80/20 GET/SET, 1 KiB values: plain Jedis pools, Lettuce (one shared connection per node), Dyno
#      (dyno: the default multiplexed transport; dyno-pooled: pooled sockets), Lettuce's and Dyno's
#      asynchronous APIs with 256 requests in flight (async=256), and each with pipelines of 3-10,
#      in interleaved rounds with a warm-up per variant (median and min-max per variant);
#   2. the production-like figure: the client JVM on CPU 0 and every dynomite/redis-server on CPU 1
#      (taskset), so client and servers do not compete for one core; the same variants but redis-benchmark;
#   3. the proxy and forwarding hop, companion beside Dynomite, redis-benchmark in interleaved rounds
#      (scripts/bench-companion.sh).
# Needs a dynomite binary you bring (env DYNO_DYNOMITE_BINARY or -Ddyno.dynomite.binary),
# redis-server, redis-benchmark, taskset (util-linux) and at least 2 CPUs.
#   scripts/bench-dynomite.sh [--rounds 5] [--duration 20s] [--warmup 5s] [--keys 100000] [--out bench-reports] [--only 1|2|3]
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=5 DURATION=20s WARMUP=5s KEYS=100000 OUT=bench-reports ONLY=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --keys) KEYS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --only) ONLY="$2"; shift 2 ;;
    *) echo "bench-dynomite: unknown option $1" >&2; exit 2 ;;
  esac
done
[ "$(nproc)" -ge 2 ] || { echo "bench-dynomite: needs at least 2 CPUs for the pinned run (nproc: $(nproc))" >&2; exit 2; }
command -v taskset >/dev/null || { echo "bench-dynomite: taskset (util-linux) is not on the PATH" >&2; exit 2; }

COMMON=(--target dynomite --threads 40 --readers 0 --writers 0 --readPercent 80 --valueSize 1024 --keys "$KEYS"
  --duration "$DURATION" --warmup "$WARMUP" --rounds "$ROUNDS" --report-dir "$OUT")
bash scripts/loadgen.sh build   # once; the runs below reuse it (DYNO_LOADGEN_NO_BUILD=1)

if [ -z "$ONLY" ] || [ "$ONLY" = 1 ]; then
  echo "[bench-dynomite] 1/3 real Dynomite, client and servers share both cores"
  DYNO_LOADGEN_NO_BUILD=1 bash scripts/loadgen.sh bench "${COMMON[@]}" --report-name dynomite-compare \
    --compare jedis-pools,lettuce,dyno-pooled,dyno,lettuce:async=256,dyno:async=256,jedis-pools:pipeline=3-10,lettuce:pipeline=3-10,dyno-pooled:pipeline=3-10,dyno:pipeline=3-10,redis-benchmark
fi
if [ -z "$ONLY" ] || [ "$ONLY" = 2 ]; then
  echo "[bench-dynomite] 2/3 real Dynomite, client JVM on CPU 0, dynomite and redis-server processes on CPU 1"
  # G1 as in the unpinned run: on one CPU the JVM would otherwise pick the serial collector.
  DYNO_LOADGEN_NO_BUILD=1 DYNO_JAVA_PREFIX="taskset -c 0" DYNO_JAVA_OPTS="-XX:+UseG1GC" bash scripts/loadgen.sh bench "${COMMON[@]}" --server-cpus 1 \
    --report-name dynomite-pinned --compare jedis-pools,lettuce,dyno-pooled,dyno,lettuce:async=256,dyno:async=256,jedis-pools:pipeline=3-10,lettuce:pipeline=3-10,dyno-pooled:pipeline=3-10,dyno:pipeline=3-10
fi
if [ -z "$ONLY" ] || [ "$ONLY" = 3 ]; then
  echo "[bench-dynomite] 3/3 proxy and forwarding hop: companion beside Dynomite (redis-benchmark)"
  DYNO_LOADGEN_NO_BUILD=1 bash scripts/loadgen.sh companion-bench --rounds "$ROUNDS"
fi
