#!/usr/bin/env bash
# Add WhisperFlow to this user's application menu, pointing at this folder (run it again after moving the folder).
# Writes $XDG_DATA_HOME/applications/whisperflow.desktop (default ~/.local/share) and the hicolor icons.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DATA="${XDG_DATA_HOME:-$HOME/.local/share}"

for size in 256 512; do
  mkdir -p "$DATA/icons/hicolor/${size}x${size}/apps"
  cp "$HERE/share/icons/hicolor/${size}x${size}/apps/whisperflow.png" "$DATA/icons/hicolor/${size}x${size}/apps/"
done
mkdir -p "$DATA/applications"
# Exec takes a quoted path (the folder may contain spaces); TryExec takes the plain path.
sed -e "s|^Exec=.*|Exec=\"$HERE/whisperflow\"|" -e "s|^TryExec=.*|TryExec=$HERE/whisperflow|" \
  "$HERE/share/applications/whisperflow.desktop" > "$DATA/applications/whisperflow.desktop"
if command -v update-desktop-database >/dev/null; then update-desktop-database -q "$DATA/applications" || true; fi
echo "WhisperFlow is in the application menu ($DATA/applications/whisperflow.desktop)"
