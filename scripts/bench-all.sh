#!/usr/bin/env bash
# Regenerate the README's benchmark figures in one run (about 40 minutes on 2 cores).
# Run on a quiet machine: latencies are computation-aware (real-time pace).
set -euo pipefail
cd "$(dirname "$0")/.."
wf=.venv/bin/whisperflow
out=${1:-docs/bench}
mkdir -p "$out"
# 1. the thread-allocation profile for this machine (the `flow` policy runs it)
$wf calibrate --png "$out/calibration.png" > "$out/calibration.md"
# 2. the long-form file, side by side: baseline, + beam pruning, flow (pruning + one-pass verification
#    under the calibrated allocation), and flow under a deliberately bad pipelined allocation
$wf bench --kind long_derived --no-lower-bound --out "$out/long" --configs \
  baseline baseline+pruning flow "flow:threads=2,handoff=4"
# 3. the short clips with the baseline
$wf bench --kind short --no-lower-bound --out "$out/short" --configs baseline
# 4. the hush-word padding study (non-streaming, short clips) and the encoder before/after the fast path
$wf padding-study --json "$out/padding.json" > "$out/padding.md"
$wf encoder-bench > "$out/encoder.md"
# 5. the decoder: MLX vs the numpy CPU decoder vs CTranslate2 int8, and every transcript that differs
$wf decoder-bench > "$out/decoder.md"
