#!/usr/bin/env bash
# THE test command (README, CI): prepares Docker, builds the project and the local images, runs
# every module's tests, and fails if any test failed or any container test was skipped.
# Environment:
#   DYNO_TARGET   Maven output folder name (default target), for parallel builds of one tree
#   MVN_ARGS      extra Maven arguments, e.g. "-Ddyno.image.dynomite=myregistry/dynomite:0.6"
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DYNO_TARGET="${DYNO_TARGET:-target}"
export DYNO_TARGET
# shellcheck disable=SC2206
MVN=(mvn -B -ntp -Dstyle.color=never "-Ddyno.target=$DYNO_TARGET" ${MVN_ARGS:-})
START=$SECONDS

log() { printf '\n[test] %s (t=%ss)\n' "$*" "$((SECONDS - START))"; }
die() { printf '[test] ERROR: %s\n' "$*" >&2; exit 1; }

command -v mvn >/dev/null 2>&1 || die "mvn not found (Maven 3.9+ and a JDK 17 are needed)"
command -v java >/dev/null 2>&1 || die "java not found (JDK 17 needed)"

log "1/5 test environment: redis-server, redis-tools, dockerd"
bash scripts/setup-test-env.sh

log "2/5 build without tests (the companion image needs the shaded jar)"
"${MVN[@]}" install -DskipTests

log "3/5 container images"
bash scripts/build-images.sh all

log "4/5 tests of every module"
# Reports from an earlier run would hide a class that no longer runs.
find . -path "*/$DYNO_TARGET/surefire-reports" -type d -prune -exec rm -rf {} + 2>/dev/null || true
mvn_rc=0
"${MVN[@]}" verify -Dsurefire.failIfNoSpecifiedTests=false || mvn_rc=$?

log "5/5 test reports"
report_rc=0
summary_file="$(mktemp)"
trap 'rm -f "$summary_file"' EXIT
java "$ROOT/scripts/SurefireSummary.java" "$ROOT" "$DYNO_TARGET" | tee "$summary_file" || report_rc=$?
# The counts line comes last, so whoever reads the end of the log sees the totals.
summary_line="$(grep '^summary:' "$summary_file" || echo 'summary: 0 passed, 0 failed')"

elapsed=$((SECONDS - START))
if [ "$mvn_rc" -ne 0 ]; then
  printf '[test] ERROR: maven verify failed (exit %s) after %ss\n%s\n' "$mvn_rc" "$elapsed" "$summary_line" >&2
  exit 1
fi
if [ "$report_rc" -ne 0 ]; then
  printf '[test] ERROR: test reports show failures or skipped container tests (see above) after %ss\n%s\n' \
    "$elapsed" "$summary_line" >&2
  exit 1
fi
printf '[test] OK in %ss\n%s\n' "$elapsed" "$summary_line"
