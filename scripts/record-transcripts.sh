#!/usr/bin/env bash
# Records the transcripts that hold the companion to real Dynomite (dyno-companion test resources,
# io/dyno/companion/transcripts/*.transcript): every conversation of io.dyno.companion.diff runs
# against a real cluster started from the binary you give (3 racks x 2 nodes; two datacenters of
# that shape for two-regions), and each answer is written down. A transcript that comes out the same is left untouched; one that changed is
# rewritten and named. Commit what changed, and re-check the README's kept differences
# (the replay, TranscriptReplayTest, fails on any difference the table does not name).
# The project ships no Dynomite: bring your own binary.
#   DYNO_DYNOMITE_BINARY=/path/to/dynomite bash scripts/record-transcripts.sh
# DYNO_RECORD_ONLY=two-regions,errors records only the conversations named.
# Needs redis-server on the PATH (scripts/setup-test-env.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -n "${DYNO_DYNOMITE_BINARY:-}" ] || { echo "record-transcripts: set DYNO_DYNOMITE_BINARY=<path to a dynomite binary>" >&2; exit 2; }
[ -x "$DYNO_DYNOMITE_BINARY" ] || { echo "record-transcripts: $DYNO_DYNOMITE_BINARY is not an executable file" >&2; exit 2; }
command -v redis-server >/dev/null 2>&1 || { echo "record-transcripts: redis-server is not on the PATH" >&2; exit 2; }
T="${DYNO_TARGET:-target}"
CP_FILE="$PWD/dyno-companion/$T/test-classpath.txt"
echo "[record] building dyno-companion's tests (mvn test-compile) ..."
# One reactor build: the classpath points at the sibling modules' classes in this tree, and the last
# module built, dyno-companion, writes the file last.
mvn -B -q -Ddyno.target="$T" test-compile dependency:build-classpath -pl dyno-companion -am \
  -Dmdep.includeScope=test -Dmdep.outputFile="$CP_FILE" >/dev/null
"$DYNO_DYNOMITE_BINARY" -V 2>&1 | head -n1 | sed 's/^/[record] /'
exec java ${DYNO_RECORD_ONLY:+-Ddyno.record.only=$DYNO_RECORD_ONLY} -cp "dyno-companion/$T/test-classes:dyno-companion/$T/classes:$(cat "$CP_FILE")" \
  io.dyno.companion.diff.TranscriptRecorder dyno-companion/src/test/resources/io/dyno/companion/transcripts
