#!/usr/bin/env bash
# One-hour soak: stream an hour of real speech (the long-form corpus file, repeated) at realtime pace with
# --jsonl, sampling the process's memory (RSS) and CPU every 30 s. Passes when the stream ends cleanly with a
# done record, every JSONL line parses, word times never go backwards and stay within the audio, and memory
# does not grow by more than SOAK_MAX_GROWTH_MB after the first 5 minutes (files are streamed from disk).
#
#   scripts/soak.sh [MINUTES]        default 60; SOAK_PACE=fast for a quicker run; SOAK_POLICY=flow|baseline
set -euo pipefail
MINUTES=${1:-60}
PACE=${SOAK_PACE:-realtime}
POLICY=${SOAK_POLICY:-flow}
MAX_GROWTH_MB=${SOAK_MAX_GROWTH_MB:-150}
PY=${PYTHON:-python}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${CORPUS:-$ROOT/shared/corpus}
[ -d "$CORPUS" ] || CORPUS=$ROOT/../shared/corpus
LONG="$CORPUS/longform/ljspeech_LJ001-0001_to_0032.wav"
OUT=${SOAK_OUT:-$(mktemp -d /tmp/wf-soak.XXXXXX)}
cd "$ROOT"

echo "soak: $MINUTES min, pace $PACE, policy $POLICY, output in $OUT"
"$PY" - "$LONG" "$OUT/soak.wav" "$MINUTES" <<'PYEOF'
import sys
import numpy as np
import soundfile as sf
src, dst, minutes = sys.argv[1], sys.argv[2], float(sys.argv[3])
audio, rate = sf.read(src, dtype="float32")
need = int(minutes * 60 * rate)
with sf.SoundFile(dst, "w", rate, 1, "PCM_16") as f:  # written block by block: an hour never sits in memory
    written = 0
    while written < need:
        part = audio[: need - written]
        f.write(part)
        written += len(part)
PYEOF

"$PY" -m cli.main stream "$OUT/soak.wav" --pace "$PACE" --policy "$POLICY" --jsonl "$OUT/soak.jsonl" \
    >"$OUT/captions.txt" 2>"$OUT/stderr.txt" &
PID=$!
echo "time_s rss_mb cpu_percent" >"$OUT/memory.tsv"
START=$(date +%s)
while kill -0 "$PID" 2>/dev/null; do
    if read -r RSS CPU < <(ps -o rss=,pcpu= -p "$PID" 2>/dev/null); then
        echo "$(( $(date +%s) - START )) $(( RSS / 1024 )) $CPU" >>"$OUT/memory.tsv"
    fi
    sleep 30
done
set +e
wait "$PID"
RC=$?
set -e
echo "exit status $RC"; tail -3 "$OUT/stderr.txt"

"$PY" - "$OUT" "$MINUTES" "$MAX_GROWTH_MB" "$RC" <<'PYEOF'
import json, sys
from pathlib import Path
out, minutes, max_growth, rc = Path(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
problems = []
if rc != 0:
    problems.append(f"exit status {rc}")
records = []
for n, line in enumerate((out / "soak.jsonl").read_text().splitlines(), 1):
    try:
        records.append(json.loads(line))
    except ValueError:
        problems.append(f"line {n} of the JSONL does not parse")
words = [r for r in records if r.get("type") == "word"]
if not records or records[-1].get("type") != "done":
    problems.append("no done record at the end")
audio_s = minutes * 60
starts = [w["start"] for w in words]
if starts != sorted(starts):
    problems.append("word times go backwards")
if any(not (0 <= w["start"] <= w["end"] <= audio_s + 0.5) for w in words):
    problems.append("a word lies outside the audio")
rows = [line.split() for line in (out / "memory.tsv").read_text().splitlines()[1:]]
rss = [(float(t), float(m)) for t, m, *_ in rows]
settled = [m for t, m in rss if t >= 300] or [m for _, m in rss]
growth = (max(settled) - settled[0]) if settled else 0.0
if growth > max_growth:
    problems.append(f"memory grew by {growth:.0f} MB after the first 5 minutes")
print(f"{len(words)} words, {len(rss)} memory samples, RSS {settled[0] if settled else 0:.0f} -> "
      f"{max(settled) if settled else 0:.0f} MB")
print("SOAK PASSED" if not problems else "SOAK FAILED: " + "; ".join(problems))
sys.exit(1 if problems else 0)
PYEOF
