#!/usr/bin/env bash
# The load generator (module dyno-loadgen). Builds what it needs (only a JDK 17+ and Maven are
# required) and runs one of its tools:
#   scripts/loadgen.sh bench [options]       the bench (see io.dyno.loadgen.BenchMain), e.g.
#   scripts/loadgen.sh bench --compare dyno,jedis-pools,lettuce,netflix-dyno,redis-benchmark --duration 30s
#     (against real Dynomite when its binary is found, else the embedded companion; --target dynomite|companion)
#   scripts/loadgen.sh check-report <dir> <name>   checks <dir>/<name>.{json,html} in headless Chromium
#   scripts/loadgen.sh companion-bench [options]   proxy and forwarding hop, companion beside Dynomite (scripts/bench-companion.sh)
#   scripts/loadgen.sh build                        only builds (scripts/bench-dynomite.sh builds once, then runs several times)
# DYNO_TARGET=<dir> builds into another output folder (default: target); DYNO_LOADGEN_NO_BUILD=1 skips
# the build when an earlier call already made it.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v java >/dev/null 2>&1 || { echo "loadgen: java (JDK 17+) is not on the PATH" >&2; exit 1; }
command -v mvn >/dev/null 2>&1 || { echo "loadgen: mvn (Maven 3.8+) is not on the PATH" >&2; exit 1; }

case "${1:-}" in
  bench) MAIN=io.dyno.loadgen.BenchMain ;;
  check-report) MAIN=io.dyno.loadgen.ReportCheck ;;
  companion-bench) MAIN=io.dyno.loadgen.CompanionProxyBench ;;
  build) MAIN= ;;
  *) echo "usage: scripts/loadgen.sh bench|check-report|companion-bench|build [options]" >&2; exit 2 ;;
esac
shift

T="${DYNO_TARGET:-target}"
CP_FILE="$PWD/dyno-loadgen/$T/loadgen-classpath.txt"
if [ "${DYNO_LOADGEN_NO_BUILD:-}" = 1 ] && [ -s "$CP_FILE" ] && [ -d "dyno-loadgen/$T/classes" ]; then
  : # DYNO_LOADGEN_NO_BUILD=1: reuse the build of an earlier loadgen.sh call (CI runs it twice in a row)
else
  echo "[loadgen] building dyno-loadgen and the modules it needs (mvn -DskipTests package) ..."
  # One reactor build: the classpath points at the sibling modules' jars in this tree, so nothing is
  # installed into ~/.m2 (other builds on the machine keep their own snapshots). The last module built,
  # dyno-loadgen, writes the file last.
  mvn -B -q -DskipTests -Ddyno.target="$T" package dependency:build-classpath -pl dyno-loadgen -am \
    -Dmdep.outputFile="$CP_FILE" >/dev/null
fi
[ -n "$MAIN" ] || exit 0
CP="dyno-loadgen/$T/classes:$(cat "$CP_FILE")"
# DYNO_JAVA_PREFIX runs the JVM under a command, e.g. "taskset -c 0" (scripts/bench-dynomite.sh);
# DYNO_JAVA_OPTS adds JVM options. The netflix-dyno driver loads Netflix Dyno from the folder the
# build gathered it in (module dyno-loadgen-netflix), in a class loader of its own.
exec ${DYNO_JAVA_PREFIX:-} java ${DYNO_JAVA_OPTS:-} -Dorg.slf4j.simpleLogger.defaultLogLevel=info -Dorg.slf4j.simpleLogger.showDateTime=false \
  -Ddyno.loadgen.netflixDyno="$PWD/dyno-loadgen-netflix/$T/netflix-dyno" -cp "$CP" "$MAIN" "$@"
