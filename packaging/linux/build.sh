#!/usr/bin/env bash
# Build the Linux one-folder app from a clean checkout into dist/WhisperFlow/:
#   dist/WhisperFlow/whisperflow                    the app (no arguments), the CLI (arguments), --selftest
#   dist/WhisperFlow/share/applications/...         the .desktop entry and its icons
#   dist/WhisperFlow/install-desktop-entry.sh       adds it to the user's application menu
# Then prints the build time, the bundle size and what dominates it.
#
# The build uses its own environment (build/bundle-env, or $WHISPERFLOW_BUILD_ENV) with only the runtime
# dependencies and PyInstaller from uv.lock, so dev tools never leak into the bundle and .venv is left alone.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
DIST="$ROOT/dist"
APP="$DIST/WhisperFlow"
ENV_DIR="${WHISPERFLOW_BUILD_ENV:-$ROOT/build/bundle-env}"
started=$(date +%s)

scripts/system-packages.sh  # OpenBLAS (shipped in the bundle), PortAudio, libsndfile, Qt's X11 libraries

if [ -x .tools/bin/uv ]; then UV=.tools/bin/uv
elif command -v uv >/dev/null; then UV="$(command -v uv)"
else make .tools/bin/uv >/dev/null && UV=.tools/bin/uv
fi
echo "== environment: $ENV_DIR (uv.lock, runtime dependencies + PyInstaller)"
UV_PROJECT_ENVIRONMENT="$ENV_DIR" "$UV" sync --frozen --extra bundle --quiet

echo "== PyInstaller"
rm -rf "$APP" "$ROOT/build/pyinstaller"
"$ENV_DIR/bin/pyinstaller" --noconfirm --log-level WARN \
  --distpath "$DIST" --workpath "$ROOT/build/pyinstaller" packaging/whisperflow.spec

echo "== desktop entry and icons"
mkdir -p "$APP/share/applications"
cp packaging/linux/whisperflow.desktop "$APP/share/applications/whisperflow.desktop"
for size in 256 512; do
  mkdir -p "$APP/share/icons/hicolor/${size}x${size}/apps"
  "$ENV_DIR/bin/python" -c "import sys; from PIL import Image; \
Image.open(sys.argv[1]).resize((int(sys.argv[2]),) * 2, Image.LANCZOS).save(sys.argv[3])" \
    assets/icon.png "$size" "$APP/share/icons/hicolor/${size}x${size}/apps/whisperflow.png"
done
install -m 755 packaging/linux/install-desktop-entry.sh "$APP/install-desktop-entry.sh"

elapsed=$(( $(date +%s) - started ))
echo "== built $APP in ${elapsed} s"
echo "bundle size: $(du -sh "$APP" | cut -f1)"
echo "largest items:"
du -sh "$APP"/_internal/* "$APP/whisperflow" | sort -rh | head -15 || true  # head closing the pipe is no failure
