#!/usr/bin/env bash
# The README's main command. Builds what the demo needs (only a JDK 17+ and Maven are required)
# and runs it: an embedded 3-rack x 2-node Dynomite-like cluster and a walk through Dyno.
#   scripts/demo.sh                       the demo (real redis-server backends when redis-server is on PATH)
#   scripts/demo.sh --backend memory      the demo on the in-memory backend
#   scripts/demo.sh build                 only builds
# The load generator is scripts/loadgen.sh (module dyno-loadgen); `scripts/demo.sh bench|check-report|
# companion-bench ...` hands over to it unchanged.
# DYNO_TARGET=<dir> builds into another output folder (default: target); DYNO_DEMO_NO_BUILD=1 skips
# the build when an earlier call already made it.
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  bench|check-report|companion-bench)
    DYNO_LOADGEN_NO_BUILD="${DYNO_LOADGEN_NO_BUILD:-${DYNO_DEMO_NO_BUILD:-}}" exec bash scripts/loadgen.sh "$@" ;;
esac

command -v java >/dev/null 2>&1 || { echo "demo: java (JDK 17+) is not on the PATH" >&2; exit 1; }
command -v mvn >/dev/null 2>&1 || { echo "demo: mvn (Maven 3.8+) is not on the PATH" >&2; exit 1; }

T="${DYNO_TARGET:-target}"
CP_FILE="$PWD/dyno-demo/$T/demo-classpath.txt"
if [ "${DYNO_DEMO_NO_BUILD:-}" = 1 ] && [ -s "$CP_FILE" ] && [ -d "dyno-demo/$T/classes" ]; then
  : # DYNO_DEMO_NO_BUILD=1: reuse the build of an earlier demo.sh call
else
  echo "[demo] building dyno-demo and the modules it needs (mvn -DskipTests package) ..."
  # One reactor build: the classpath points at the sibling modules' jars in this tree, so nothing is
  # installed into ~/.m2 (other builds on the machine keep their own snapshots). The last module built,
  # dyno-demo, writes the file last.
  mvn -B -q -DskipTests -Ddyno.target="$T" package dependency:build-classpath -pl dyno-demo -am \
    -Dmdep.outputFile="$CP_FILE" >/dev/null
fi
CP="dyno-demo/$T/classes:$(cat "$CP_FILE")"

[ "${1:-}" != build ] || exit 0
# DYNO_JAVA_OPTS adds JVM options.
exec java ${DYNO_JAVA_OPTS:-} -Dorg.slf4j.simpleLogger.defaultLogLevel=info -Dorg.slf4j.simpleLogger.showDateTime=false \
  -cp "$CP" io.dyno.demo.DemoMain "$@"
