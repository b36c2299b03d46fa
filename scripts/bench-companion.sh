#!/usr/bin/env bash
# What a proxy hop and a forwarding hop cost, the companion's beside real Dynomite's, in one run
# (measured, not asserted): redis-benchmark -t set and -t get against redis-server directly, a
# 1-node companion and a 1-node Dynomite (proxy hop), and the first node of a 2-node companion and a
# 2-node Dynomite rack (about half the keys forwarded), interleaved rounds, median and min-max, ratio
# to redis-server directly per round (io.dyno.loadgen.CompanionProxyBench). Dynomite rows need its
# binary (env DYNO_DYNOMITE_BINARY; a binary you bring). Needs redis-server and redis-benchmark (scripts/setup-test-env.sh).
#   scripts/bench-companion.sh [--rounds 5] [--requests 100000] [--clients 40] [--valueSize 1024] [--keys 100000]
set -euo pipefail
exec bash "$(dirname "$0")/loadgen.sh" companion-bench "$@"
