#!/usr/bin/env bash
# Makes Debian's ffmpeg available for media conversion (POST /api/{session}/media/convert/voice
# and .../video, gateway/src/media-convert/). From the distribution's package, like chromium,
# nats-server and openssl: nothing is downloaded from elsewhere.
set -euo pipefail

if [ -n "${SWITCHBOARD_FFMPEG_PATH:-}" ] && [ -x "$SWITCHBOARD_FFMPEG_PATH" ]; then exit 0; fi
command -v ffmpeg >/dev/null && exit 0

apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ffmpeg
