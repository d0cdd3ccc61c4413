#!/usr/bin/env bash
# One-hour soak (issue 15): an hour of real speech through a PulseAudio virtual microphone into the app
# (offscreen) and `whisperflow stream --device` at once, both with `flow`. See tools/soak.py for the checks.
#
#   scripts/soak.sh [--minutes 60] [--out DIR]        (python -m tools.soak --help)
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python -m tools.soak "$@"
