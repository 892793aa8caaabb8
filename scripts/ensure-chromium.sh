#!/usr/bin/env bash
# Make sure a Chromium the browser tests can drive is installed.
# Order: $CHROMIUM_PATH, then chromium / chromium-browser / google-chrome on PATH.
# On Debian as root, install Debian's chromium (+ fonts) when none is found.
set -euo pipefail

find_browser() {
  if [[ -n "${CHROMIUM_PATH:-}" && -x "${CHROMIUM_PATH}" ]]; then echo "$CHROMIUM_PATH"; return 0; fi
  for name in chromium chromium-browser google-chrome google-chrome-stable; do
    if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
  done
  return 1
}

if browser=$(find_browser); then
  echo "browser tests will use $browser"
  exit 0
fi

if [[ -f /etc/debian_version && $(id -u) -eq 0 ]]; then
  echo "no Chromium found: installing Debian's chromium and fonts-liberation"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
  browser=$(find_browser) || { echo "chromium was installed but is not on PATH" >&2; exit 1; }
  echo "browser tests will use $browser"
  exit 0
fi

cat >&2 <<'MSG'
No Chromium or Chrome was found, and it cannot be installed automatically here
(automatic install needs Debian and root).  Install Chromium or Chrome, then either put it
on PATH or point the tests at it:

    CHROMIUM_PATH=/path/to/chromium make test
MSG
exit 1
