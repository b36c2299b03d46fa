#!/usr/bin/env bash
# Fuzzes every Jazzer @FuzzTest of the project (dyno-core, dyno-eureka, dyno-companion, dyno-jedis)
# for SECONDS each (default 10: CI's fixed short budget). A plain `mvn test` only replays each
# fuzz test's seeds and past findings (src/test/resources/**/<Class>Inputs/<method>/) as
# regression tests; this script really fuzzes, one JVM per fuzz-test class (Jazzer fuzzes one
# fuzz test per JVM).
#   bash scripts/fuzz.sh            # ~10 s per target, what CI runs
#   bash scripts/fuzz.sh 600        # 10 minutes per target
#   FUZZ_TESTS=ReplyFuzzTest bash scripts/fuzz.sh 300   # one target
# A finding fails the run; its input is saved as crash-<sha1> next to the seeds, where every later
# `mvn test` replays it. Fix the bug, keep that input (or turn it into a plain test), commit both.
# Environment: DYNO_TARGET (Maven output folder name, default target), MVN_ARGS (extra Maven args).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SECONDS_PER_TARGET="${1:-10}"
case "$SECONDS_PER_TARGET" in ''|*[!0-9]*) echo "usage: bash scripts/fuzz.sh [seconds-per-target]" >&2; exit 2;; esac
DYNO_TARGET="${DYNO_TARGET:-target}"
# shellcheck disable=SC2206
MVN=(mvn -B -ntp -Dstyle.color=never "-Ddyno.target=$DYNO_TARGET" ${MVN_ARGS:-})

export JAZZER_FUZZ=1
export JAZZER_MAX_DURATION="${SECONDS_PER_TARGET}s"
before="$(mktemp)"
trap 'rm -f "$before"' EXIT
find . -path '*/src/test/resources/*Inputs/*' -name 'crash-*' -type f | sort >"$before"

rc=0
"${MVN[@]}" -pl dyno-core,dyno-eureka,dyno-companion,dyno-jedis -am test \
  "-Dtest=${FUZZ_TESTS:-*FuzzTest}" -Dsurefire.failIfNoSpecifiedTests=false -DreuseForks=false || rc=$?

new="$(find . -path '*/src/test/resources/*Inputs/*' -name 'crash-*' -type f | sort | comm -13 "$before" - || true)"
if [ -n "$new" ]; then
  printf '[fuzz] new findings (replayed by every `mvn test` from now on):\n%s\n' "$new"
fi
if [ "$rc" -ne 0 ]; then
  printf '[fuzz] FAILED (exit %s): see the surefire reports above\n' "$rc" >&2
  exit "$rc"
fi
printf '[fuzz] OK: every fuzz test ran %ss without a finding\n' "$SECONDS_PER_TARGET"
