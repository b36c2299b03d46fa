#!/usr/bin/env bash
# Prepares a machine for the full test suite: redis-server, redis-tools, chromium (the headless
# browser that checks the bench report's charts) and a Docker engine that follows
# ../shared/docker-here.md (no bridge, no iptables, host networking only, nothing pulled).
# Idempotent: installs only what is missing and reuses a dockerd that already answers.
# Needs root (or passwordless sudo).
set -euo pipefail

log() { printf '[setup-test-env] %s\n' "$*"; }
die() { printf '[setup-test-env] ERROR: %s\n' "$*" >&2; exit 1; }

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || die "must run as root, or with sudo available"
  SUDO="sudo -n"
fi

DOCKERD_LOG="${DOCKERD_LOG:-/tmp/dockerd.log}"

# --- packages ---------------------------------------------------------------------------------
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || missing+=(redis-tools)
command -v redis-benchmark >/dev/null 2>&1 || { [[ " ${missing[*]-} " == *" redis-tools "* ]] || missing+=(redis-tools); }
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
# Any of the names io.dyno.loadgen.ReportCheck looks for will do; Debian's package is chromium.
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
  || command -v google-chrome >/dev/null 2>&1 || missing+=(chromium)

if [ "${#missing[@]}" -gt 0 ]; then
  # The docker.io package would otherwise start a default dockerd with a bridge (docker0, a
  # private-range address): forbid service starts while installing.
  rc=0
  if [ -x /usr/sbin/policy-rc.d ]; then /usr/sbin/policy-rc.d >/dev/null 2>&1 || rc=$?; fi
  if [ "$rc" -ne 101 ]; then
    log "writing /usr/sbin/policy-rc.d (exit 101) so packages start no services"
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod 755 /usr/sbin/policy-rc.d
  fi
  log "installing missing packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
else
  log "redis-server, redis-tools, docker.io and chromium already installed"
fi

# A redis-server started by the package (if any) is not used by the tests; leave it alone.

# --- dockerd ----------------------------------------------------------------------------------
docker_answers() { $SUDO docker info >/dev/null 2>&1; }

if docker_answers; then
  log "dockerd already running and answering; reusing it"
else
  if pgrep -x dockerd >/dev/null 2>&1; then
    log "a dockerd process exists but does not answer yet; waiting for it"
  else
    # No bridge, no NAT: containers run with host networking and bind 127.0.0.1 only.
    $SUDO ip link delete docker0 2>/dev/null || true
    # A dockerd that died leaves its pid file behind, and a new one refuses to start over it.
    $SUDO rm -f /var/run/docker.pid
    log "starting dockerd --bridge=none --iptables=false --ip-masq=false (log: $DOCKERD_LOG)"
    $SUDO bash -c "nohup dockerd --bridge=none --iptables=false --ip-masq=false >'$DOCKERD_LOG' 2>&1 </dev/null &"
  fi
  start=$(date +%s%N)
  for _ in $(seq 1 120); do
    if docker_answers; then break; fi
    sleep 0.5
  done
  if ! docker_answers; then
    printf '[setup-test-env] ERROR: dockerd did not answer `docker info` within 60 s. Its log (%s):\n' "$DOCKERD_LOG" >&2
    cat "$DOCKERD_LOG" >&2 || true
    exit 1
  fi
  log "dockerd answers after $(( ($(date +%s%N) - start) / 1000000 )) ms"
fi

if ip link show docker0 >/dev/null 2>&1; then
  die "a docker0 bridge exists: dockerd was started with a bridge. Stop it and rerun this script."
fi
log "docker server $($SUDO docker version --format '{{.Server.Version}} (API {{.Server.APIVersion}})' 2>/dev/null)"
