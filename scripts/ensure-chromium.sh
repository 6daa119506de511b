#!/usr/bin/env bash
# Makes Debian's Chromium available: the headless shell (package chromium-headless-shell) that the
# browser engines drive through puppeteer (about half the full browser's memory for one session,
# docs/operations.md), and the full browser that the dashboard's tests open pages in, as a person
# pairing a phone would. Why Debian's: puppeteer's own browser download is never used
# (PUPPETEER_SKIP_DOWNLOAD), so the browser comes from the distribution, like nats-server and openssl.
set -euo pipefail

packages=()
# The engines' browser: the one SWITCHBOARD_CHROMIUM_PATH names, or Debian's headless shell.
if [ -n "${SWITCHBOARD_CHROMIUM_PATH:-}" ]; then
  [ -x "$SWITCHBOARD_CHROMIUM_PATH" ] || { echo "SWITCHBOARD_CHROMIUM_PATH=$SWITCHBOARD_CHROMIUM_PATH is not an executable" >&2; exit 1; }
else
  [ -x /usr/lib/chromium/chromium-headless-shell ] || packages+=(chromium-headless-shell)
fi
command -v chromium >/dev/null || packages+=(chromium)
[ ${#packages[@]} -eq 0 ] && exit 0

apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}"
