#!/usr/bin/env bash
# Proves the BOM: an application that imports it (consumer/pom.xml, no versions of its own) resolves
# every library at the version the build resolves, module by module. Fails naming any that differ.
#   bash dyno-bom/src/it/check-bom.sh                 installs the BOM and the modules, then compares
#   bash dyno-bom/src/it/check-bom.sh --no-install    compares against what ~/.m2 already holds
#   bash dyno-bom/src/it/check-bom.sh -v              also lists every library that matches
# The consumer resolves Dyno from the local repository, as an application would, hence the install
# (into ~/.m2: other builds of the same snapshot version see it). DYNO_TARGET=<dir> builds into
# another output folder (default: target); MVN_FLAGS adds Maven flags (e.g. -o).
set -euo pipefail
cd "$(dirname "$0")/../../.."

install=1 verbose=0
for a in "$@"; do
  case "$a" in
    --no-install) install=0 ;;
    -v) verbose=1 ;;
    *) echo "check-bom: unknown argument $a" >&2; exit 2 ;;
  esac
done

T="${DYNO_TARGET:-target}"
MODULES=dyno-core,dyno-jedis,dyno-recipes,dyno-companion,dyno-eureka,dyno-eureka-client
# The project's own version line is the only <version> at two spaces of indent in the BOM.
VERSION="$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' dyno-bom/pom.xml)"
mvn_() { mvn -B -q ${MVN_FLAGS:-} -Ddyno.target="$T" "$@"; }

if [ "$install" = 1 ]; then
  echo "[bom] installing dyno-bom $VERSION and $MODULES (-DskipTests) ..."
  mvn_ -DskipTests install -pl "dyno-bom,$MODULES" -am
fi

work="$(mktemp -d /tmp/dyno-bom-check.XXXXXX)"
trap 'rm -rf "$work"' EXIT

echo "[bom] the build's resolution of each module ..."
mvn_ dependency:list -pl "$MODULES" -Dsort=true -DoutputFile="$T/bom-check-deps.txt"
cp dyno-bom/src/it/consumer/pom.xml "$work/pom.xml"
# The libraries the BOM pins by name (the netty-bom import covers Netty, which is compile scope).
sed -n 's:.*<groupId>\([^<]*\)</groupId><artifactId>\([^<]*\)</artifactId><version>.*:\1\:\2:p' \
  dyno-bom/pom.xml >"$work/pinned.txt"

# Lines read "group:artifact:type[:classifier]:version:scope", maybe followed by " -- module ...".
# Compared: what reaches an application through the module (compile and runtime scope in the build)
# and the optional or provided libraries the BOM pins (archaius2, testcontainers, eureka-client,
# guava). Not compared: the build's test scope, and eureka-client's own dependencies, which the
# build manages with Spring Boot's BOM (imported there for the test Eureka server) while an
# application gets them from its own platform: those are listed as "outside".
compare='
  function parse(line,   n, f) {
    sub(/ -- .*/, "", line); gsub(/^ +| +$/, "", line)
    n = split(line, f, ":")
    if (n < 5) return 0
    scope = f[n]; version = f[n - 1]
    key = f[1] ":" f[2] (n == 6 ? ":" f[4] : "")
    return 1
  }
  FNR == 1 { file++ }
  file == 1 { pinned[$1] = 1; next }
  file == 2 && parse($0) {
    if (scope == "compile" || scope == "runtime" || (scope == "provided" && key in pinned)) build[key] = version
    else if (scope == "provided") other[key] = version
  }
  file == 3 && parse($0) {
    if (key in build) {
      compared++
      if (build[key] != version) { printf "  DIFFERS  %-56s build %-14s consumer %s\n", key, build[key], version; bad++ }
      else if (verbose) printf "  same     %-56s %s\n", key, version
    } else {
      outside++
      if (verbose) printf "  outside  %-56s build %-14s consumer %s\n", key, (key in other ? other[key] : "-"), version
    }
  }
  END {
    printf "  %d libraries compared, %d differ", compared, bad + 0
    if (outside) printf "; %d outside the BOM (eureka-client'"'"'s own dependencies)", outside
    print ""
    exit bad > 0 || compared == 0
  }
'
status=0
for m in ${MODULES//,/ }; do
  { cat "$m/$T/bom-check-deps.txt"; echo "   io.dyno:$m:jar:$VERSION:compile"; } >"$work/build-$m.txt"
  mvn_ -f "$work/pom.xml" -P "$m" dependency:list -Ddyno.version="$VERSION" -Dsort=true \
    -DoutputFile="$work/consumer-$m.txt"
  echo "[bom] $m: the build against a project importing dyno-bom $VERSION"
  awk -v verbose="$verbose" "$compare" "$work/pinned.txt" "$work/build-$m.txt" "$work/consumer-$m.txt" || status=1
done
[ "$status" = 0 ] && echo "[bom] OK: the BOM reproduces the build's versions" || echo "[bom] FAILED: see DIFFERS above"
exit "$status"
