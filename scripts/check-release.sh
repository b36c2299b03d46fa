#!/usr/bin/env bash
# Checks a release the way Maven Central would, without publishing anything: `mvn -Prelease deploy`
# of every published module into a file repository in a temporary folder (nothing installed into
# ~/.m2, nothing sent anywhere), then scripts/ReleaseCheck.java on what landed there: each module's
# pom, jar, -sources.jar and -javadoc.jar (the BOM and the parent pom: pom only), checksums, module
# names, the pom's name, description, url, licence, developers and scm (its own or its parents'), no
# SNAPSHOT in a release, and the BOM listing every published module. One line per problem; exit 1.
#   bash scripts/check-release.sh              # the check (what CI runs)
#   bash scripts/check-release.sh --selftest   # the check, then proof that it fails on broken copies
#   bash scripts/check-release.sh --signed     # also require a .asc beside each file (signing on:
#                                              # MVN_ARGS=-Dgpg.skip=false, see docs/releasing.md)
# Modules whose pom sets maven.deploy.skip (demo, loadgen, benchmarks, e2e) are not published and
# are left out of the build, and classes already compiled are not compiled again (Maven's
# useIncrementalCompilation=false: only stale sources), so after a build it mostly packages.
# Environment: DYNO_TARGET (Maven output folder name, default target),
# MVN_ARGS (extra Maven arguments), KEEP=1 (keep the temporary repository and say where).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
selftest=0 signed=()
for a in "$@"; do
  case "$a" in
    --selftest) selftest=1 ;;
    --signed) signed=(--signed) ;;
    *) echo "usage: bash scripts/check-release.sh [--selftest] [--signed]" >&2; exit 2 ;;
  esac
done
DYNO_TARGET="${DYNO_TARGET:-target}"
# The project's own version line is the only <version> at two spaces of indent in the BOM.
VERSION="$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' dyno-bom/pom.xml)"
[ -n "$VERSION" ] || { echo "[release] cannot read the version from dyno-bom/pom.xml" >&2; exit 2; }
for f in LICENSE NOTICE; do
  [ -s "$f" ] || { echo "[release] $f is missing at the repository root" >&2; exit 1; }
done
grep -q 'Apache License' LICENSE && grep -q 'Version 2.0, January 2004' LICENSE \
  || { echo "[release] LICENSE is not the Apache License 2.0" >&2; exit 1; }

unpublished="$(grep -l '<maven.deploy.skip>true</maven.deploy.skip>' ./*/pom.xml | xargs -rn1 dirname \
  | xargs -rn1 basename | sed 's/^/!/' | paste -sd, - || true)"
work="$(mktemp -d /tmp/dyno-release-check.XXXXXX)"
if [ "${KEEP:-0}" = 1 ]; then echo "[release] keeping $work"; else trap 'rm -rf "$work"' EXIT; fi

start=$SECONDS
echo "[release] mvn -Prelease deploy of $VERSION into $work/repo (not published: ${unpublished//!/})"
# shellcheck disable=SC2086
mvn -B -ntp -q -T1 -Dstyle.color=never "-Ddyno.target=$DYNO_TARGET" ${MVN_ARGS:-} -Prelease deploy \
  ${unpublished:+-pl "$unpublished"} -DskipTests -Dmaven.install.skip=true -Dspotless.check.skip=true \
  -Dmaven.compiler.useIncrementalCompilation=false \
  "-DaltDeploymentRepository=local::default::file://$work/repo"
echo "[release] deployed in $((SECONDS - start))s; checking"
javac -d "$work/classes" "$ROOT/scripts/ReleaseCheck.java"
check() { java -cp "$work/classes" ReleaseCheck "$1" "$2" "${signed[@]}"; }
check "$work/repo" "$VERSION"

[ "$selftest" = 1 ] || exit 0
# Each case breaks a copy of the repository as a release could be broken and expects the check to
# fail with a line naming the fault; a release copy (the version without -SNAPSHOT) must pass first.
fails=0
expect_failure() { # name, repository, version, a fixed string the output must contain
  local out rc=0
  out="$(check "$2" "$3" 2>&1)" || rc=$?
  printf '%s\n' "$out" | sed 's/^/    /'
  if [ "$rc" -ne 0 ] && grep -qF -- "$4" <<<"$out"; then
    echo "[release] selftest $1: failed as it should"
  else
    echo "[release] selftest $1: NOT caught (exit $rc; expected a line with \"$4\")"; fails=$((fails + 1))
  fi
}
copy() { rm -rf "$work/$1"; cp -r "$work/repo" "$work/$1"; }
pom_of() { ls "$work/$1/io/dyno/$2/$3"/*.pom | sort | tail -n1; }

copy no-sources
rm "$work"/no-sources/io/dyno/dyno-core/"$VERSION"/*-sources.jar*
expect_failure "a module without its sources jar" "$work/no-sources" "$VERSION" "dyno-core: no -sources.jar"

copy no-licence
sed -i '/<licenses>/,/<\/licenses>/d' "$(pom_of no-licence dyno-bom "$VERSION")"
expect_failure "the licence removed from the top pom" "$work/no-licence" "$VERSION" "dyno-jedis: pom has no <licenses>"

copy not-in-bom
sed -i '/<artifactId>dyno-recipes<\/artifactId>/d' "$(pom_of not-in-bom dyno-bom "$VERSION")"
expect_failure "a deployed module the BOM does not list" "$work/not-in-bom" "$VERSION" "dyno-recipes: deployed but the BOM does not list it"

# The same repository as a release: directories, file names and the project's version renamed.
release="${VERSION%-SNAPSHOT}"
if [ "$release" != "$VERSION" ]; then
  copy as-release
  for d in "$work"/as-release/io/dyno/*/"$VERSION"; do
    for f in "$d"/*; do
      n="$(basename "$f" | sed -E "s/-${release//./\\.}-[0-9]{8}\.[0-9]{6}-[0-9]+/-$release/")"
      [ "$(basename "$f")" = "$n" ] || mv "$f" "$d/$n"
    done
    rm -f "$d"/maven-metadata*
    mv "$d" "$(dirname "$d")/$release"
  done
  find "$work/as-release" -name '*.pom' -exec sed -i "s/$VERSION/$release/g" {} +
  if out="$(check "$work/as-release" "$release" 2>&1)"; then
    echo "[release] selftest the same modules as release $release: passes"
  else
    printf '%s\n' "$out" | sed 's/^/    /'
    echo "[release] selftest the same modules as release $release: FAILED, expected to pass"; fails=$((fails + 1))
  fi
  sed -i "0,/<\/dependencies>/s|</dependencies>|<dependency><groupId>org.example</groupId><artifactId>unreleased</artifactId><version>1.0-SNAPSHOT</version></dependency></dependencies>|" \
    "$(pom_of as-release dyno-core "$release")"
  expect_failure "a SNAPSHOT dependency in a release" "$work/as-release" "$release" "dyno-core: SNAPSHOT in a release: dependency org.example:unreleased:1.0-SNAPSHOT"
fi
if [ "$fails" -gt 0 ]; then echo "[release] selftest: $fails case(s) not caught" >&2; exit 1; fi
echo "[release] selftest: every broken copy caught, in $((SECONDS - start))s in all"
