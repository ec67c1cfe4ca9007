#!/usr/bin/env bash
# Install the system Chromium that the browser tests (tests/browser/) drive through Playwright.
# Playwright's own browser download is not used: the tests launch /usr/bin/chromium by path.
# Idempotent: does nothing (fast) when /usr/bin/chromium already exists. Debian/Ubuntu (apt) only.
set -euo pipefail

CHROMIUM=/usr/bin/chromium
# fonts-dejavu-core: without any font, headless Chromium draws no text (and lays pages out differently).
PACKAGES=(chromium chromium-driver fonts-dejavu-core)

if [ -x "$CHROMIUM" ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  cat >&2 <<MSG
error: $CHROMIUM is missing; the browser tests (tests/browser/) need Debian's Chromium.
Install it as root, then run the tests again:
  sudo apt-get update && sudo apt-get install -y ${PACKAGES[*]}
(or run this script as root: sudo bash tools/install_browser.sh)
MSG
  exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "error: $CHROMIUM is missing and apt-get is not available; install Chromium (${PACKAGES[*]}) at $CHROMIUM yourself." >&2
  exit 1
fi

echo "install_browser: installing ${PACKAGES[*]} with apt-get"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null

if [ ! -x "$CHROMIUM" ]; then
  echo "error: apt-get finished but $CHROMIUM is still missing" >&2
  exit 1
fi
echo "install_browser: $("$CHROMIUM" --version 2>/dev/null || echo chromium installed)"
