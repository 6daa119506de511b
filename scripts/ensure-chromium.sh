#!/usr/bin/env bash
# Makes Debian's chromium available for the WEBJS engine (whatsapp-web.js drives it through
# puppeteer). Why Debian's: puppeteer's own browser download is never used (PUPPETEER_SKIP_DOWNLOAD),
# so the browser comes from the distribution's package, like nats-server and openssl.
set -euo pipefail

if [ -n "${SWITCHBOARD_CHROMIUM_PATH:-}" ] && [ -x "$SWITCHBOARD_CHROMIUM_PATH" ]; then exit 0; fi
command -v chromium >/dev/null && exit 0

apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
