#!/usr/bin/env bash
# Builds the gateway image's ffmpeg into docker/bin/ffmpeg: Debian's own ffmpeg source (the version
# apt offers for the `ffmpeg` package here, with Debian's patches, fetched and verified by apt from
# the machine's own Debian mirrors), configured for what media conversion does and linked
# statically. Why not Debian's `ffmpeg` package: it links 213 libraries (SDL, Mesa, LLVM, flite,
# x265, ICU...), 246 MB unpacked and 115 MB of the image as a node pulls it, which put the gateway
# image at 238 MB against its 200 (issue 14). This one is one 18 MB file with no library beside it.
#
# What it can do (engine-pod/src/media/convert.ts): read every format and codec ffmpeg decodes
# itself (all demuxers, decoders and parsers, so any file a client sends), and write OGG/Opus
# (libopus) and MP4 with H.264 (libx264) and AAC, through the few filters conversion uses. No
# network protocol, no device, no hardware codec: ffmpeg only ever reads a local file here.
#
# Cached under ~/.cache/switchboard/ffmpeg by Debian version and this script's hash: a build takes
# about 3 minutes on 2 cores, once. The Makefile runs this before `make images`; local mode and the
# tests use the machine's ffmpeg (scripts/ensure-ffmpeg.sh).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/docker/bin/ffmpeg"
cache="${SWITCHBOARD_CACHE:-$HOME/.cache/switchboard}/ffmpeg"
mkdir -p "$cache" "$(dirname "$out")"

# The build's tools and the two encoders' static libraries, from Debian.
need=(gcc make nasm pkg-config libopus-dev libx264-dev zlib1g-dev xz-utils)
missing=()
for package in "${need[@]}"; do dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The version Debian's binary package has here: the source package of the same version.
version="$(apt-cache policy ffmpeg | sed -nE 's/^  Candidate: (.+)$/\1/p')"
if [ -z "$version" ] || [ "$version" = "(none)" ]; then
  apt-get update -qq
  version="$(apt-cache policy ffmpeg | sed -nE 's/^  Candidate: (.+)$/\1/p')"
fi
[ -n "$version" ] && [ "$version" != "(none)" ] || { echo "ffmpeg-build: apt knows no ffmpeg package" >&2; exit 1; }
key="$(printf '%s\n' "$version" | cat - "$0" | sha256sum | cut -c1-16)"
cached="$cache/ffmpeg-${version//[:~+]/_}-$key"

if [ ! -x "$cached" ]; then
  start=$SECONDS
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  # A private apt state with the machine's Debian sources as deb-src entries: apt checks the
  # source files against the signed Sources index, as `apt-get source` does anywhere.
  mkdir -p "$work/apt/lists/partial" "$work/apt/parts" "$work/apt/cache/archives/partial"
  for list in /etc/apt/sources.list.d/*.sources; do
    [ -f "$list" ] && sed -E 's/^Types:.*/Types: deb-src/' "$list" > "$work/apt/parts/$(basename "$list")"
  done
  if [ -f /etc/apt/sources.list ]; then
    sed -nE 's/^deb[[:space:]]+/deb-src /p' /etc/apt/sources.list > "$work/apt/parts/from-sources-list.list"
  fi
  # The sandbox user _apt cannot write into a private temp dir: the download runs as this user.
  apt_private=(-o "APT::Sandbox::User=$(id -un)" -o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$work/apt/parts"
    -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache")
  apt-get "${apt_private[@]}" update -qq
  # Package lists older than the mirror's name a version its pool may no longer hold (Debian keeps
  # only the current one): then the newest source there is, which is the one apt would install.
  if ! (cd "$work" && apt-get "${apt_private[@]}" source --download-only -qq "ffmpeg=$version" >/dev/null 2>&1); then
    echo "ffmpeg-build: Debian's sources have no ffmpeg $version (older package lists here); building their newest" >&2
    (cd "$work" && apt-get "${apt_private[@]}" source --download-only -qq ffmpeg >/dev/null)
  fi
  mkdir "$work/src"
  for tarball in "$work"/ffmpeg_*.orig.tar.* "$work"/ffmpeg_*.debian.tar.*; do
    case "$tarball" in
      *.asc) ;;
      *.orig.tar.*) tar -xf "$tarball" -C "$work/src" --strip-components=1 ;;
      *) tar -xf "$tarball" -C "$work/src" ;;
    esac
  done
  if [ -f "$work/src/debian/patches/series" ]; then
    grep -vE '^[[:space:]]*(#|$)' "$work/src/debian/patches/series" | while read -r patch _; do
      patch -s -p1 -d "$work/src" < "$work/src/debian/patches/$patch"
    done
  fi
  # --disable-autodetect: nothing links that is not named here (zlib: compressed MP4 headers, PNG).
  (cd "$work/src" && ./configure --disable-everything --disable-autodetect --disable-doc --disable-debug \
    --disable-ffplay --disable-ffprobe --disable-network --disable-avdevice --disable-postproc \
    --enable-gpl --enable-zlib --enable-libopus --enable-libx264 \
    --pkg-config-flags=--static --extra-ldexeflags=-static \
    --enable-protocol=file,pipe --enable-demuxers --enable-decoders --enable-parsers \
    --enable-encoder=libopus,libx264,aac --enable-muxer=ogg,mp4 \
    --enable-filter=scale,aresample,aformat,format,null,anull,copy,acopy,setpts,asetpts,trim,atrim,fps,pad,crop,hflip,vflip,transpose,pan,volume,split,asplit \
    --enable-bsf=aac_adtstoasc,h264_mp4toannexb,vp9_superframe,extract_extradata >"$work/configure.log" 2>&1) \
    || { tail -20 "$work/configure.log" >&2; exit 1; }
  make -C "$work/src" -j"$(nproc)" ffmpeg >"$work/make.log" 2>&1 || { tail -30 "$work/make.log" >&2; exit 1; }
  # A temp name, then a rename: a build cut short leaves no half-written binary in the cache.
  cp "$work/src/ffmpeg" "$cached.tmp" && mv -f "$cached.tmp" "$cached"
  echo "ffmpeg-build: built Debian's ffmpeg $version in $((SECONDS - start))s" >&2
fi
cp -f "$cached" "$out.tmp" && mv -f "$out.tmp" "$out"
echo "ffmpeg-build: $out (Debian $version, $(du -h "$out" | cut -f1), static)" >&2
