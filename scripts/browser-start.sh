#!/usr/bin/env bash
# The browser tests' needs, installed from Debian's packages when missing: headless
# Chromium and its WebDriver, and the DejaVu fonts the map pictures are drawn with.
# Each test starts its own chromedriver; nothing is left running.
set -euo pipefail
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -x /usr/bin/chromedriver ] || need+=(chromium-driver)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
if [ ${#need[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || { echo "browser-start.sh: missing ${need[*]}; run as root to install them" >&2; exit 1; }
  echo "installing ${need[*]} (Debian packages)…" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
/usr/bin/chromium --version
