#!/usr/bin/env bash
# What the companion's proxy hop costs, measured (not asserted): redis-benchmark against one
# companion node (redis backend) vs that node's redis-server directly, interleaved rounds, medians
# and the ratio proxy/direct. Needs redis-server and redis-benchmark (scripts/setup-test-env.sh).
#   scripts/bench-companion.sh [--rounds 3] [--requests 100000] [--clients 40] [--valueSize 1024] [--keys 100000]
set -euo pipefail
exec bash "$(dirname "$0")/demo.sh" companion-bench "$@"
