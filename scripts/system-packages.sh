#!/usr/bin/env bash
# Install the Debian/Ubuntu packages WhisperFlow needs on Linux (skips what is already there).
# OpenBLAS (fast CPU matmuls for MLX), PortAudio + the ALSA pulse plugin (microphones), PulseAudio
# (system audio and the test virtual microphone), libsndfile, and what Qt needs offscreen or under Xvfb.
set -euo pipefail
[ "$(uname -s)" = Linux ] || exit 0
command -v dpkg-query >/dev/null || { echo "not a Debian-based system: install OpenBLAS, PortAudio, PulseAudio and libsndfile yourself" >&2; exit 0; }
packages=(
  libopenblas0-pthread libportaudio2 libasound2-plugins pulseaudio pulseaudio-utils libsndfile1
  xvfb xauth libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3
  libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0 libxcb-randr0
  libxcb-render-util0 libxcb-image0 fonts-dejavu-core
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing: ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
