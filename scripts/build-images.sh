#!/usr/bin/env bash
# Builds the local test images, all FROM scratch so nothing is ever pulled
# (see ../shared/docker-here.md):
#   dyno/redis:local      redis-server + the libraries ldd lists + the loader
#   dyno/companion:local  a jlink'ed JRE + dyno-companion's shaded jar (entrypoint: java -jar)
#   dyno/dynomite:local   the real Dynomite binary + its libraries + the loader, built only when
#                         DYNO_DYNOMITE_BINARY names a binary the user brings (the project ships
#                         no Dynomite and CI has none). Built here, never committed or pushed:
#                         users elsewhere may name their own image with -Ddyno.image.dynomite=<image>.
# Usage: scripts/build-images.sh [all|redis|companion|dynomite]      (default: all)
#   all builds dynomite too when DYNO_DYNOMITE_BINARY is set; "dynomite" alone fails without it.
# Environment:
#   DYNO_IMAGE_REDIS      tag for the Redis image      (default dyno/redis:local)
#   DYNO_IMAGE_COMPANION  tag for the companion image  (default dyno/companion:local)
#   DYNO_IMAGE_DYNOMITE_LOCAL  tag for the Dynomite image (default dyno/dynomite:local)
#   DYNO_DYNOMITE_BINARY  the Dynomite binary          (no default)
#   DYNO_TARGET           Maven output folder name holding the shaded jar (default target)
#   COMPANION_JAR         explicit path to dyno-companion-*-all.jar (overrides DYNO_TARGET)
#   FORCE=1               rebuild even when the image already holds the same inputs
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WHAT="${1:-all}"
REDIS_TAG="${DYNO_IMAGE_REDIS:-dyno/redis:local}"
COMPANION_TAG="${DYNO_IMAGE_COMPANION:-dyno/companion:local}"
DYNOMITE_TAG="${DYNO_IMAGE_DYNOMITE_LOCAL:-dyno/dynomite:local}"
DYNOMITE_BIN="${DYNO_DYNOMITE_BINARY:-}"
DYNO_TARGET="${DYNO_TARGET:-target}"
export DOCKER_BUILDKIT=0   # the classic builder: no buildx, and it never pulls FROM scratch

log() { printf '[build-images] %s\n' "$*"; }
die() { printf '[build-images] ERROR: %s\n' "$*" >&2; exit 1; }

case "$WHAT" in all|redis|companion|dynomite) ;; *) die "unknown image '$WHAT' (expected all, redis, companion or dynomite)";; esac
command -v docker >/dev/null 2>&1 || die "docker not found: run scripts/setup-test-env.sh first"
docker info >/dev/null 2>&1 || die "docker does not answer: run scripts/setup-test-env.sh first"

WORK="$(mktemp -d /tmp/dyno-images.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

# Copies each shared library a binary needs (as ldd resolves them) into ROOTFS at the same path.
copy_libs() {
  local rootfs="$1"; shift
  local f lib
  for f in "$@"; do
    # ldd lines: "libz.so.1 => /lib/x86_64-linux-gnu/libz.so.1 (0x…)" or "/lib64/ld-linux-x86-64.so.2 (0x…)"
    while read -r lib; do
      [ -n "$lib" ] || continue
      [ -e "$rootfs$lib" ] && continue
      mkdir -p "$rootfs$(dirname "$lib")"
      cp -L "$lib" "$rootfs$lib"
    done < <(ldd "$f" 2>/dev/null | awk '/=> \//{print $3} /^\s*\/[^ ]+ \(/{print $1}')
  done
  # The loader, whatever ldd printed.
  if [ -e /lib64/ld-linux-x86-64.so.2 ] && [ ! -e "$rootfs/lib64/ld-linux-x86-64.so.2" ]; then
    mkdir -p "$rootfs/lib64"; cp -L /lib64/ld-linux-x86-64.so.2 "$rootfs/lib64/"
  fi
}

# Minimal files some programs look up (user name, tmp dir).
base_files() {
  local rootfs="$1"
  mkdir -p "$rootfs/etc" "$rootfs/tmp"
  chmod 1777 "$rootfs/tmp"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
}

# An image is rebuilt only when its inputs changed: their digest is kept in a label.
input_digest() { cat "$@" | sha256sum | cut -c1-32; }
up_to_date() {
  local tag="$1" digest="$2"
  [ "${FORCE:-0}" != "1" ] || return 1
  [ "$(docker image inspect -f '{{index .Config.Labels "io.dyno.inputs"}}' "$tag" 2>/dev/null || true)" = "$digest" ]
}

# docker build, quiet unless it fails (the legacy builder prints a deprecation notice on stderr).
docker_build() {
  local tag="$1" ctx="$2"
  if ! docker build -q --pull=false -t "$tag" "$ctx" >"$WORK/build.log" 2>&1; then
    cat "$WORK/build.log" >&2
    die "docker build of $tag failed"
  fi
  # The image this one replaced is now dangling: remove it (only ours, by label).
  docker image prune -f --filter label=io.dyno.inputs >/dev/null 2>&1 || true
}

build_redis() {
  local t0=$SECONDS ctx="$WORK/redis" bin digest
  bin="$(command -v redis-server)" || die "redis-server not found: run scripts/setup-test-env.sh first"
  digest="$(input_digest "$bin" "$0")"
  if up_to_date "$REDIS_TAG" "$digest"; then
    log "$REDIS_TAG is up to date (same redis-server and script); FORCE=1 rebuilds"
    return
  fi
  mkdir -p "$ctx/rootfs/usr/local/bin"
  base_files "$ctx/rootfs"
  # /usr/bin/redis-server is a symlink to redis-check-rdb; Redis picks its mode from argv[0],
  # so the copy must be named redis-server.
  cp -L "$bin" "$ctx/rootfs/usr/local/bin/redis-server"
  copy_libs "$ctx/rootfs" "$bin"
  cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY rootfs/ /
WORKDIR /tmp
LABEL io.dyno.inputs="@DIGEST@"
ENTRYPOINT ["/usr/local/bin/redis-server"]
CMD ["--bind", "127.0.0.1", "--port", "6379", "--save", "", "--appendonly", "no", "--protected-mode", "no"]
DOCKERFILE
  sed -i "s/@DIGEST@/$digest/" "$ctx/Dockerfile"
  log "building $REDIS_TAG from $bin"
  docker_build "$REDIS_TAG" "$ctx"
  log "built $REDIS_TAG ($(docker image inspect -f '{{.Size}}' "$REDIS_TAG" | awk '{printf "%.1f MB", $1/1e6}')) in $((SECONDS - t0)) s"
}

find_companion_jar() {
  if [ -n "${COMPANION_JAR:-}" ]; then
    [ -f "$COMPANION_JAR" ] || die "COMPANION_JAR=$COMPANION_JAR does not exist"
    printf '%s\n' "$COMPANION_JAR"; return
  fi
  local jars=()
  shopt -s nullglob
  jars=("$ROOT/dyno-companion/$DYNO_TARGET"/dyno-companion-*-all.jar)
  shopt -u nullglob
  [ "${#jars[@]}" -gt 0 ] || die "no dyno-companion/$DYNO_TARGET/dyno-companion-*-all.jar: run 'mvn -B install -DskipTests' first (or set COMPANION_JAR)"
  ls -t "${jars[@]}" | head -n1
}

build_companion() {
  local t0=$SECONDS ctx="$WORK/companion" jar modules jre digest
  jar="$(find_companion_jar)"
  digest="$(input_digest "$jar" "$0" "$(command -v java)")"
  if up_to_date "$COMPANION_TAG" "$digest"; then
    log "$COMPANION_TAG is up to date (same jar, JDK and script); FORCE=1 rebuilds"
    return
  fi
  command -v jlink >/dev/null 2>&1 || die "jlink not found: a full JDK 17+ is needed"
  command -v jdeps >/dev/null 2>&1 || die "jdeps not found: a full JDK 17+ is needed"
  mkdir -p "$ctx/rootfs/app"
  base_files "$ctx/rootfs"
  # The modules the shaded jar uses, plus jdk.unsupported (Netty reaches sun.misc.Unsafe by
  # reflection, which jdeps cannot see) and java.management/java.naming that Netty probes.
  modules="$(jdeps --multi-release 17 --ignore-missing-deps --print-module-deps "$jar" 2>/dev/null || true)"
  [ -n "$modules" ] || modules="java.base"
  modules="$(printf '%s\n' "$modules" jdk.unsupported java.management java.naming | tr ',' '\n' | sort -u | paste -sd, -)"
  jre="$ctx/rootfs/opt/jre"
  log "jlink: $modules"
  jlink --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
        --compress=2 --output "$jre" >/dev/null 2>&1 \
    || jlink --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --output "$jre"
  cp "$jar" "$ctx/rootfs/app/dyno-companion.jar"
  copy_libs "$ctx/rootfs" "$jre/bin/java" $(find "$jre/lib" -name '*.so')
  cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY rootfs/ /
WORKDIR /tmp
LABEL io.dyno.inputs="@DIGEST@"
ENV JAVA_HOME=/opt/jre
ENTRYPOINT ["/opt/jre/bin/java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m", "-Xss512k", "-XX:-UsePerfData", "-jar", "/app/dyno-companion.jar"]
DOCKERFILE
  sed -i "s/@DIGEST@/$digest/" "$ctx/Dockerfile"
  log "building $COMPANION_TAG from $(basename "$jar")"
  docker_build "$COMPANION_TAG" "$ctx"
  log "built $COMPANION_TAG ($(docker image inspect -f '{{.Size}}' "$COMPANION_TAG" | awk '{printf "%.1f MB", $1/1e6}')) in $((SECONDS - t0)) s"
}

build_dynomite() {
  local t0=$SECONDS ctx="$WORK/dynomite" bin digest
  [ -n "$DYNOMITE_BIN" ] || die "no Dynomite binary given (set DYNO_DYNOMITE_BINARY=<path to a dynomite binary>)"
  [ -f "$DYNOMITE_BIN" ] || die "no Dynomite binary at $DYNOMITE_BIN (DYNO_DYNOMITE_BINARY)"
  bin="$(cd "$(dirname "$DYNOMITE_BIN")" && pwd)/$(basename "$DYNOMITE_BIN")"
  "$bin" -V >/dev/null 2>&1 || die "$bin does not run here (\`$bin -V\` failed)"
  digest="$(input_digest "$bin" "$0")"
  if up_to_date "$DYNOMITE_TAG" "$digest"; then
    log "$DYNOMITE_TAG is up to date (same binary and script); FORCE=1 rebuilds"
    return
  fi
  mkdir -p "$ctx/rootfs/usr/local/bin"
  base_files "$ctx/rootfs"
  cp -L "$bin" "$ctx/rootfs/usr/local/bin/dynomite"
  copy_libs "$ctx/rootfs" "$bin"
  # No shell and no default PATH in a scratch image: ContainerCluster starts "dynomite -c <conf>",
  # which Docker resolves through this PATH.
  cat >"$ctx/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY rootfs/ /
WORKDIR /tmp
LABEL io.dyno.inputs="@DIGEST@"
ENV PATH=/usr/local/bin
ENTRYPOINT ["/usr/local/bin/dynomite"]
CMD ["-V"]
DOCKERFILE
  sed -i "s/@DIGEST@/$digest/" "$ctx/Dockerfile"
  log "building $DYNOMITE_TAG from $bin ($("$bin" -V 2>&1 | head -n1))"
  docker_build "$DYNOMITE_TAG" "$ctx"
  log "built $DYNOMITE_TAG ($(docker image inspect -f '{{.Size}}' "$DYNOMITE_TAG" | awk '{printf "%.1f MB", $1/1e6}')) in $((SECONDS - t0)) s"
}

case "$WHAT" in
  redis) build_redis ;;
  companion) build_companion ;;
  dynomite) build_dynomite ;;
  all)
    build_redis; build_companion
    if [ -n "$DYNOMITE_BIN" ]; then
      build_dynomite
    else
      log "no DYNO_DYNOMITE_BINARY: $DYNOMITE_TAG not built (the real-Dynomite container tests need -Ddyno.image.dynomite=<image>)"
    fi
    ;;
esac
