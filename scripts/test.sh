#!/usr/bin/env bash
# THE test command (README, CI): prepares Docker, builds the project, checks what a release would
# publish (scripts/check-release.sh), builds the local images, runs every module's tests, runs the
# client's transport and engine tests once more on Java 25 where a JDK 25 is installed, runs the
# bench (default, pooled sockets and Netflix Dyno, 40 s each) and checks its report in headless Chromium, and fails if any test failed, any
# test was skipped, or the bench report is missing or its charts are empty (or the release check
# failed). The only skips allowed are real-Dynomite tests when no real Dynomite is given: the project
# ships none and CI has none (the companion is held to it by recorded transcripts, replayed in every
# run). Give a binary (DYNO_DYNOMITE_BINARY: process tests, and dyno/dynomite:local is built from it
# for the container tests) or an image (-Ddyno.image.dynomite in MVN_ARGS, or DYNO_IMAGE_DYNOMITE),
# and then no real-Dynomite test may skip.
# Environment:
#   DYNO_DYNOMITE_BINARY  a real Dynomite binary you bring (optional)
#   DYNO_TARGET   Maven output folder name (default target), for parallel builds of one tree
#   MVN_ARGS      extra Maven arguments, e.g. "-Ddyno.image.dynomite=myregistry/dynomite:0.6"
#   BENCH_TIMEOUT seconds the bench step (its build included) may take (default 600)
#   FUZZ_SECONDS  seconds of fuzzing per Jazzer target (default 5; scripts/fuzz.sh)
#   DYNO_JAVA25_HOME  the JDK 25 for the Java 25 stage (default /usr/lib/jvm/temurin-25-jdk-amd64;
#                 where neither exists the stage is skipped and says so)
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

STAGES=()
stage_start=$SECONDS
stage_name=""
stage() { # closes the running stage (its time goes into the final "stages:" line) and opens the next
  if [ -n "$stage_name" ]; then STAGES+=("$stage_name $((SECONDS - stage_start))s"); fi
  stage_name="$1"
  stage_start=$SECONDS
  [ -z "$1" ] || log "$2"
}

stage setup "1/10 test environment: redis-server, redis-tools, chromium, dockerd"
bash scripts/setup-test-env.sh

stage build "2/10 build without tests (the companion image needs the shaded jar)"
"${MVN[@]}" install -DskipTests

# Issue 35: what a release would put on Maven Central (pom, jar, sources, javadoc, licence, scm,
# developers, module names, the BOM complete), deployed into a temporary file repository and checked;
# --selftest proves the check fails on a release missing a sources jar, its licence or a BOM entry.
stage release "3/10 release check: the published modules as Maven Central would take them (scripts/check-release.sh)"
release_rc=0
bash scripts/check-release.sh --selftest || release_rc=$?

stage images "4/10 container images"
bash scripts/build-images.sh all
# Which real Dynomite was given: a binary (process tests; scripts/build-images.sh built
# dyno/dynomite:local from it for the container tests) and/or an image (-Ddyno.image.dynomite in
# MVN_ARGS, or env DYNO_IMAGE_DYNOMITE). Nothing found lying on the machine counts: what a run tests
# against is said, not guessed. Where one is given, every test that needs it must run.
dynomite_binary="${DYNO_DYNOMITE_BINARY:-}"
dynomite_image="$(printf '%s\n' ${MVN_ARGS:-} | sed -n 's/^-Ddyno\.image\.dynomite=//p' | tail -n1)"
dynomite_image="${dynomite_image:-${DYNO_IMAGE_DYNOMITE:-}}"
binary_state=absent image_state=absent
if [ -n "$dynomite_binary" ]; then
  [ -x "$dynomite_binary" ] || die "DYNO_DYNOMITE_BINARY=$dynomite_binary is not an executable file"
  binary_state=present
  if [ -z "$dynomite_image" ]; then
    dynomite_image=dyno/dynomite:local
    MVN+=("-Ddyno.image.dynomite=$dynomite_image")
  fi
fi
if [ -n "$dynomite_image" ]; then
  docker image inspect "$dynomite_image" >/dev/null 2>&1 || die "the Dynomite image $dynomite_image is not in the local docker"
  image_state=present
fi
if [ "$binary_state$image_state" = absentabsent ]; then
  log "real Dynomite: none given; the real-Dynomite tests skip, the recorded transcripts stand in (set DYNO_DYNOMITE_BINARY or -Ddyno.image.dynomite to run them)"
else
  log "real Dynomite: binary $binary_state (${dynomite_binary:-none}), image $image_state (${dynomite_image:-none})"
fi

stage tests "5/10 tests of every module"
# Reports from an earlier run would hide a class that no longer runs.
find . -path "*/$DYNO_TARGET/surefire-reports" -type d -prune -exec rm -rf {} + 2>/dev/null || true
mvn_rc=0
"${MVN[@]}" verify --fail-at-end -Dsurefire.failIfNoSpecifiedTests=false || mvn_rc=$?

# Issue 23: the network faults (a blackhole, +50 ms, 20 % loss, a reset storm) on one node of a
# companion cluster in containers, with iptables and a delaying proxy (root, as CI runs), while
# three clients carry a paced load; every check of docs/node-faults.md holds or the run fails.
# Apart from the tests stage (no Test suffix) so that nothing else loads the machine meanwhile.
# With a Dynomite image (given, or built from the binary) real Dynomite's cluster takes them too.
faults_tests=CompanionNetworkFaults
[ "$image_state" = absent ] || faults_tests="$faults_tests,RealDynomiteNetworkFaults"
stage faults "6/10 network faults on a cluster in containers: $faults_tests (docs/node-faults.md)"
faults_rc=0
"${MVN[@]}" test -pl dyno-e2e "-Dtest=$faults_tests" -Dsurefire.failIfNoSpecifiedTests=false \
  || faults_rc=$?

# Applications run the client on newer JVMs than the Java 17 it is built for (virtual threads among
# them): the engine, the multiplexed transport and interrupted callers on both transports once more on
# Java 25, compiled there too. Its own output folder keeps its reports out of the summary below (which
# reads only */$DYNO_TARGET), so nothing is counted twice; Maven's exit code is what fails the run.
stage java25 "7/10 transport and engine tests once more on Java 25"
java25_home="${DYNO_JAVA25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
java25_rc=0
if [ -x "$java25_home/bin/java" ]; then
  java25_line="$("$java25_home/bin/java" -version 2>&1 | head -n1)"
  # shellcheck disable=SC2086
  JAVA_HOME="$java25_home" mvn -B -ntp -Dstyle.color=never "-Ddyno.target=$DYNO_TARGET-java25" ${MVN_ARGS:-} test \
    -pl dyno-core,dyno-jedis -am -Dsurefire.failIfNoSpecifiedTests=false \
    -Dtest='EngineTest,AsyncEngineTest,Mux*Test,RespDecoderTest,RealDynomiteMultiplexedTransportTest,ClientMetricsTest,InterruptedCallerTest' \
    || java25_rc=$?
  java25_line="$java25_line: $([ "$java25_rc" -eq 0 ] && echo passed || echo FAILED) (reports in */$DYNO_TARGET-java25)"
else
  java25_line="skipped: no JDK 25 at $java25_home (install one there or set DYNO_JAVA25_HOME)"
  log "Java 25: $java25_line"
fi

# Real fuzzing for a fixed short budget (a plain `mvn verify` above only replays the fuzzers'
# seeds and past findings as regression tests): each Jazzer target for FUZZ_SECONDS.
stage fuzz "8/10 fuzzing: every Jazzer target for ${FUZZ_SECONDS:-5} s (scripts/fuzz.sh)"
fuzz_rc=0
bash scripts/fuzz.sh "${FUZZ_SECONDS:-5}" || fuzz_rc=$?

# Issue 7, Must show 2: the command a user runs against the embedded cluster, then its JSON and
# HTML reports checked by the same io.dyno.loadgen.ReportCheck the browser test uses. Issue 22,
# Must show 5, and issue 34, Must show 5: the default transport beside pooled sockets and beside
# Netflix Dyno 1.7.2 (the client Dyno replaces) in the same run, 40 s each, so the summary gives
# their ratios and client CPU per operation on this machine rather than figures from another day.
stage bench "9/10 bench against the embedded cluster (default, pooled sockets, Netflix Dyno; 40 s each); its report checked in headless Chromium"
bench_dir="$(mktemp -d /tmp/dyno-ci-bench.XXXXXX)"
summary_file="$(mktemp)"
trap 'rm -f "$summary_file"; rm -rf "$bench_dir"' EXIT
bench_rc=0
timeout --kill-after=10 "${BENCH_TIMEOUT:-600}" bash scripts/loadgen.sh bench --backend redis --duration 40s \
  --keys 20000 --valueSize 1024 --compare dyno-pooled,dyno,netflix-dyno --report-dir "$bench_dir" --report-name ci-bench 2>&1 \
  | tee "$bench_dir/bench.log" || bench_rc=$?
bench_line="$(awk '/^== (dyno|dyno-pooled|netflix-dyno) on /{ v = $2; for (i = 1; i < NF; i++) if ($(i + 1) == "ops/s,") ops[v] = $i }
  /^   client CPU: [0-9]/{ if (v != "") cpu[v] = $3; v = "" }
  END { if (("dyno" in ops) && ("dyno-pooled" in ops) && ("netflix-dyno" in ops))
    printf "default %d ops/s, pooled sockets %d ops/s, Netflix Dyno %d ops/s in the same run: default %.2fx pooled, %.2fx Netflix Dyno, pooled %.2fx Netflix Dyno; client CPU per op %s / %s / %s us",
      ops["dyno"], ops["dyno-pooled"], ops["netflix-dyno"], ops["dyno"] / ops["dyno-pooled"],
      ops["dyno"] / ops["netflix-dyno"], ops["dyno-pooled"] / ops["netflix-dyno"],
      cpu["dyno"], cpu["dyno-pooled"], cpu["netflix-dyno"] }' \
  "$bench_dir/bench.log" || true)"
check_rc=0
DYNO_LOADGEN_NO_BUILD=1 bash scripts/loadgen.sh check-report "$bench_dir" ci-bench 2>&1 | tee "$bench_dir/check.log" || check_rc=$?
check_line="$(grep -m1 '^report check' "$bench_dir/check.log" || echo 'report check: did not run')"
if [ "$check_rc" -ne 0 ]; then check_line="$(cat "$bench_dir/check.log")"; fi

stage reports "10/10 test reports"
report_rc=0
java "$ROOT/scripts/SurefireSummary.java" "$ROOT" "$DYNO_TARGET" "--dynomite-image=$image_state" \
  "--dynomite-binary=$binary_state" | tee "$summary_file" || report_rc=$?
stage ""
# The counts line comes last, so whoever reads the end of the log sees the totals.
summary_line="$(grep '^summary:' "$summary_file" || echo 'summary: 0 passed, 0 failed')"

elapsed=$((SECONDS - START))
errors=()
[ "$release_rc" -eq 0 ] || errors+=("the release check failed (exit $release_rc; see stage 3/10 above)")
[ "$mvn_rc" -eq 0 ] || errors+=("maven verify failed (exit $mvn_rc)")
[ "$faults_rc" -eq 0 ] || errors+=("the network-fault suite failed (exit $faults_rc; see stage 6/10 above)")
[ "$java25_rc" -eq 0 ] || errors+=("the tests on Java 25 failed (exit $java25_rc; see stage 7/10 above)")
[ "$fuzz_rc" -eq 0 ] || errors+=("fuzzing found a failure or could not run (exit $fuzz_rc; see [fuzz] above)")
[ "$report_rc" -eq 0 ] || errors+=("test reports show failures or skipped tests (see above)")
[ "$bench_rc" -eq 0 ] || errors+=("the bench failed (exit $bench_rc; 124 = timed out after ${BENCH_TIMEOUT:-600}s)")
[ "$check_rc" -eq 0 ] || errors+=("the bench report is missing or its charts are empty (io.dyno.loadgen.ReportCheck, see above)")
printf '\n[test] stages: %s\n' "$(IFS=,; echo "${STAGES[*]}" | sed 's/,/, /g')"
printf '[test] java 25: %s\n' "$java25_line"
printf '[test] bench: %s\n' "${bench_line:-no summary line (the bench did not finish)}"
printf '[test] %s\n' "$check_line"
if [ "${#errors[@]}" -gt 0 ]; then
  for e in "${errors[@]}"; do printf '[test] ERROR: %s\n' "$e" >&2; done
  printf '[test] FAILED after %ss\n%s\n' "$elapsed" "$summary_line" >&2
  exit 1
fi
printf '[test] OK in %ss\n%s\n' "$elapsed" "$summary_line"
