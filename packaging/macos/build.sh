#!/usr/bin/env bash
# Build WhisperFlow.app on an Apple-silicon Mac; sign and notarize it when given an identity and a notary profile.
#
#   packaging/macos/build.sh                        ad-hoc signed: runs on this Mac, Gatekeeper blocks it elsewhere
#   SIGN_IDENTITY="Developer ID Application: Jane Doe (TEAMID)" NOTARY_PROFILE=whisperflow packaging/macos/build.sh
#
# Parameters (environment):
#   SIGN_IDENTITY   codesign identity (`security find-identity -v -p codesigning` lists yours); empty = ad-hoc
#   NOTARY_PROFILE  notarytool keychain profile, made once with:
#                   xcrun notarytool store-credentials whisperflow --apple-id you@example.com --team-id TEAMID
#                   (it asks for an app-specific password); empty = no notarization
#   BUNDLE_ID       CFBundleIdentifier (default io.whisperflow.WhisperFlow)
#   MIN_MACOS       LSMinimumSystemVersion floor (default 14.0, MLX's oldest Metal wheel; raised to the wheel used)
# Needs Xcode command line tools (codesign, iconutil, sips, notarytool, stapler) and uv (or python3 to fetch it).
set -euo pipefail

[ "$(uname -s)" = Darwin ] && [ "$(uname -m)" = arm64 ] || { echo "run this on an Apple-silicon Mac" >&2; exit 1; }
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
APP="$ROOT/dist/WhisperFlow.app"
ENV_DIR="${WHISPERFLOW_BUILD_ENV:-$ROOT/build/bundle-env-macos}"
ENTITLEMENTS="$ROOT/packaging/macos/entitlements.plist"
SIGN_IDENTITY="${SIGN_IDENTITY:-}"
NOTARY_PROFILE="${NOTARY_PROFILE:-}"
started=$(date +%s)

if [ -x .tools/bin/uv ]; then UV=.tools/bin/uv
elif command -v uv >/dev/null; then UV="$(command -v uv)"
else make .tools/bin/uv >/dev/null && UV=.tools/bin/uv
fi
echo "== environment: $ENV_DIR"
UV_PROJECT_ENVIRONMENT="$ENV_DIR" "$UV" sync --frozen --extra bundle --quiet

echo "== icon: assets/icon.png -> build/WhisperFlow.icns"
ICONSET="$ROOT/build/WhisperFlow.iconset"
rm -rf "$ICONSET" && mkdir -p "$ICONSET"
for size in 16 32 128 256 512; do
  sips -z "$size" "$size" assets/icon.png --out "$ICONSET/icon_${size}x${size}.png" >/dev/null
  sips -z $((size * 2)) $((size * 2)) assets/icon.png --out "$ICONSET/icon_${size}x${size}@2x.png" >/dev/null
done
iconutil -c icns "$ICONSET" -o "$ROOT/build/WhisperFlow.icns"

echo "== PyInstaller"
rm -rf "$APP" "$ROOT/dist/WhisperFlow" "$ROOT/build/pyinstaller-macos"
WHISPERFLOW_ICNS="$ROOT/build/WhisperFlow.icns" WHISPERFLOW_CODESIGN_ID="$SIGN_IDENTITY" \
WHISPERFLOW_BUNDLE_ID="${BUNDLE_ID:-io.whisperflow.WhisperFlow}" WHISPERFLOW_MIN_MACOS="${MIN_MACOS:-14.0}" \
  "$ENV_DIR/bin/pyinstaller" --noconfirm --log-level WARN \
  --distpath "$ROOT/dist" --workpath "$ROOT/build/pyinstaller-macos" packaging/whisperflow.spec

echo "== MLX's Metal library next to every libmlx.dylib"
found=0
while IFS= read -r lib; do
  found=1
  if [ -e "$(dirname "$lib")/mlx.metallib" ]; then echo "ok: $(dirname "$lib")/mlx.metallib"
  else echo "missing: $(dirname "$lib")/mlx.metallib" >&2; exit 1
  fi
done < <(find "$APP" -name libmlx.dylib)
[ "$found" = 1 ] || { echo "no libmlx.dylib in $APP" >&2; exit 1; }
/usr/libexec/PlistBuddy -c "Print :LSMinimumSystemVersion" "$APP/Contents/Info.plist" | sed 's/^/LSMinimumSystemVersion: /'

echo "== self-test on the GPU (fresh model cache)"
SELFTEST_DIR="$ROOT/build/selftest-macos"
rm -rf "$SELFTEST_DIR"
WHISPERFLOW_CACHE_DIR="$SELFTEST_DIR/cache" WHISPERFLOW_CONFIG_DIR="$SELFTEST_DIR/config" \
WHISPERFLOW_DATA_DIR="$SELFTEST_DIR/data" "$APP/Contents/MacOS/WhisperFlow" --selftest | tee "$SELFTEST_DIR.log"
grep -q "on Device(gpu" "$SELFTEST_DIR.log" || { echo "the self-test did not run on the GPU" >&2; exit 1; }

if [ -n "$SIGN_IDENTITY" ]; then
  echo "== codesign: $SIGN_IDENTITY (hardened runtime, entitlements)"
  # PyInstaller signed every binary inside with the same identity and options; this seals the bundle itself.
  codesign --force --timestamp --options runtime --entitlements "$ENTITLEMENTS" --sign "$SIGN_IDENTITY" "$APP"
  codesign --verify --deep --strict --verbose=2 "$APP"
  codesign --display --entitlements - "$APP"
else
  echo "== no SIGN_IDENTITY: the app is ad-hoc signed (this Mac only)"
fi

VERSION="$("$ENV_DIR/bin/python" -c 'from importlib.metadata import version; print(version("whisperflow"))')"
ZIP="$ROOT/dist/WhisperFlow-$VERSION-macos-arm64.zip"
if [ -n "$SIGN_IDENTITY" ] && [ -n "$NOTARY_PROFILE" ]; then
  echo "== notarization (profile $NOTARY_PROFILE)"
  ditto -c -k --sequesterRsrc --keepParent "$APP" "$ROOT/build/WhisperFlow-notarize.zip"
  xcrun notarytool submit "$ROOT/build/WhisperFlow-notarize.zip" --keychain-profile "$NOTARY_PROFILE" --wait
  xcrun stapler staple "$APP"
  xcrun stapler validate "$APP"
  spctl --assess --type execute --verbose=2 "$APP"
elif [ -n "$NOTARY_PROFILE" ]; then
  echo "NOTARY_PROFILE needs SIGN_IDENTITY (Apple notarizes Developer ID signed apps only)" >&2; exit 1
fi
ditto -c -k --sequesterRsrc --keepParent "$APP" "$ZIP"

elapsed=$(( $(date +%s) - started ))
echo "== built $APP in ${elapsed} s; download: $ZIP ($(du -sh "$ZIP" | cut -f1))"
echo "app size: $(du -sh "$APP" | cut -f1)"
echo "largest items:"
du -sh "$APP"/Contents/Frameworks/* "$APP"/Contents/Resources/* 2>/dev/null | sort -rh | head -15
