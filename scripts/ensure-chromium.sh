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

tests_browser() {  # what tests/browser/conftest.py picks: CHROMIUM_PATH, the headless shell, then $1
  if [[ -n "${CHROMIUM_PATH:-}" && -x "${CHROMIUM_PATH}" ]]; then echo "$CHROMIUM_PATH"; return; fi
  command -v chromium-headless-shell || echo "$1"
}

# The tests prefer Debian's chromium-headless-shell (same Chromium, about 40% less CPU per page;
# tests/browser/conftest.py): add it as root on Debian when missing, next to chromium.
if [[ -z "${CHROMIUM_PATH:-}" ]] && ! command -v chromium-headless-shell >/dev/null 2>&1 \
    && [[ -f /etc/debian_version && $(id -u) -eq 0 ]]; then
  echo "installing Debian's chromium-headless-shell for the browser tests"
  export DEBIAN_FRONTEND=noninteractive
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium-headless-shell fonts-liberation >/dev/null; } \
    || echo "could not install chromium-headless-shell: the browser tests will use chromium (slower)" >&2
fi

if browser=$(find_browser); then
  echo "browser tests will use $(tests_browser "$browser")"
  exit 0
fi

if [[ -f /etc/debian_version && $(id -u) -eq 0 ]]; then
  echo "no Chromium found: installing Debian's chromium and fonts-liberation"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
  browser=$(find_browser) || { echo "chromium was installed but is not on PATH" >&2; exit 1; }
  echo "browser tests will use $(tests_browser "$browser")"
  exit 0
fi

cat >&2 <<'MSG'
No Chromium or Chrome was found, and it cannot be installed automatically here
(automatic install needs Debian and root).  Install Chromium or Chrome, then either put it
on PATH or point the tests at it:

    CHROMIUM_PATH=/path/to/chromium make test
MSG
exit 1
