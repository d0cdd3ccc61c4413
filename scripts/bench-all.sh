#!/usr/bin/env bash
# Regenerate the README's benchmark figures, side by side in one run (about 45 minutes on 2 cores).
# Run on a quiet machine: latencies are computation-aware (real-time pace).
set -euo pipefail
cd "$(dirname "$0")/.."
wf=.venv/bin/whisperflow
out=${1:-docs/bench}
mkdir -p "$out"
# 1. the thread-allocation profile for this machine (the `flow` policy's pipeline uses it)
$wf calibrate --png "$out/calibration.png" | tee "$out/calibration.md"
# 2. the ablation on the long-form file, computation-aware; the last row is a deliberately bad allocation
$wf bench --kind long_derived --no-lower-bound --out "$out/long" --configs \
  baseline baseline+pruning baseline+pruning+hush "flow:pipeline=off" flow "flow:threads=1,handoff=12"
# 3. the computation-unaware lower bound of flow on the long-form file
$wf bench --kind long_derived --pace unaware --no-lower-bound --out "$out/long-unaware" --configs flow
# 4. the short clips with the baseline
$wf bench --kind short --no-lower-bound --out "$out/short" --configs baseline
# 5. the hush-word padding study (non-streaming, short clips) and the encoder before/after the fast path
$wf padding-study --json "$out/padding.json" | tee "$out/padding.md"
$wf encoder-bench | tee "$out/encoder.md"
