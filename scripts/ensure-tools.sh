#!/usr/bin/env bash
# Make sure the command-line tools the load tests drive are installed: wrk (HTTP load generator).
# On Debian as root, install Debian's package when it is missing; elsewhere say how to get it.
set -euo pipefail

if command -v wrk >/dev/null 2>&1; then
  echo "load tests will use $(command -v wrk)"
  exit 0
fi

if [[ -f /etc/debian_version && $(id -u) -eq 0 ]]; then
  echo "no wrk found: installing Debian's wrk"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends wrk >/dev/null
  command -v wrk >/dev/null 2>&1 || { echo "wrk was installed but is not on PATH" >&2; exit 1; }
  echo "load tests will use $(command -v wrk)"
  exit 0
fi

cat >&2 <<'MSG'
wrk (the HTTP load generator the load tests use) was not found, and it cannot be installed
automatically here (automatic install needs Debian and root).  Install it from your
distribution's packages (Debian/Ubuntu: apt-get install wrk; macOS: brew install wrk) and make
sure it is on PATH.
MSG
exit 1
