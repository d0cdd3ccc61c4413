"""`whisperflow bench --score-jsonl`: WER and per-word latency of any stream-format JSONL (another
system's output, or a saved `whisperflow stream --jsonl`), optionally added to a bench run's table."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from engine.errors import WhisperFlowError
from engine.scoring.latency import summarize
from engine.scoring.wer import WerCounts
from tools.bench.final_score import final_events, score_finals
from tools.bench.manifest import ManifestEntry, load_manifest
from tools.bench.reference import OfflineTranscripts, timed_reference
from tools.bench.results import ResultsLog
from tools.bench.stream_score import score_stream, word_events
from tools.bench.textgrid import read_textgrid_words


def read_jsonl(path: Path) -> list[dict]:
    records = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise WhisperFlowError(f"cannot read {path}: {exc}") from exc
    for number, line in enumerate(lines, start=1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except ValueError as exc:
                raise WhisperFlowError(f"{path} line {number} is not JSON ({exc})") from exc
    if not any(r.get("type") == "word" for r in records):
        raise WhisperFlowError(f'{path} has no word events ({{"type": "word", "text", "emitted", ...}})')
    bad = [r for r in records if r.get("type") == "word" and not {"text", "emitted"} <= r.keys()]
    if bad:
        raise WhisperFlowError(f"{path}: word events need at least text and emitted, e.g. {bad[0]}")
    return records


@dataclass(frozen=True)
class ScoreInput:
    """What a JSONL is scored against."""

    reference_text: str
    reference_source: str
    textgrid: Path | None
    entry: ManifestEntry | None


def _manifest_entry(audio: Path, manifest: Path | None) -> ManifestEntry | None:
    if manifest is None:
        return None
    target = audio.resolve()
    return next((e for e in load_manifest(manifest) if e.path.resolve() == target), None)


def resolve_reference(
    audio: Path, reference: str | None, manifest: Path | None, offline: OfflineTranscripts, reference_model: str
) -> ScoreInput:
    """The reference text (given text or file, the manifest's, else the reference model's offline transcript)."""
    entry = _manifest_entry(audio, manifest)
    beside = audio.with_suffix(".TextGrid")
    textgrid = entry.textgrid if entry else (beside if beside.is_file() else None)
    if reference is not None:
        given = Path(reference)
        if given.suffix.lower() == ".textgrid" and given.is_file():
            text = " ".join(w.text for w in read_textgrid_words(given))
            return ScoreInput(text, f"TextGrid {given.name}", given, entry)
        if given.is_file():
            return ScoreInput(given.read_text(encoding="utf-8"), f"file {given.name}", textgrid, entry)
        return ScoreInput(reference, "given text", textgrid, entry)
    if entry is not None:
        return ScoreInput(entry.reference, f"manifest {entry.name}", textgrid, entry)
    text = offline.text(reference_model, audio)
    return ScoreInput(
        text,
        f"offline {reference_model} transcript (no reference given; this WER is agreement with that "
        f"model, not accuracy)",
        textgrid,
        entry,
    )


def score_jsonl(
    jsonl: Path,
    audio: Path,
    reference: str | None,
    manifest: Path | None,
    reference_model: str,
    label: str | None = None,
    out_dir: Path | None = None,
) -> str:
    """Score jsonl against audio; returns the lines to print. With out_dir, adds it to that run's results."""
    if not audio.is_file():
        raise WhisperFlowError(f"audio file not found: {audio}")
    records = read_jsonl(jsonl)
    words = word_events(records)
    offline = OfflineTranscripts()
    given = resolve_reference(audio, reference, manifest, offline, reference_model)
    timed = timed_reference(audio, given.textgrid, offline, reference_model)
    finals = final_events(records)
    scored = {**score_stream(words, given.reference_text, timed), **score_finals(words, finals, given.reference_text)}
    counts = WerCounts(**scored["wer"])
    stats = summarize([lat for _, lat, _ in scored["latencies"]])
    label = label or jsonl.stem
    wer = _percent(counts)
    done = next((r for r in reversed(records) if r.get("type") == "done"), None)
    forced = (done or {}).get("forced", "–")
    lines = [
        f"{label}: WER {wer} ({counts.errors} errors / {counts.reference_words} words: "
        f"{counts.substitutions} substituted, "
        f"{counts.deletions} deleted, {counts.insertions} inserted; {forced} forced confirmations; "
        f"reference: {given.reference_source})",
        f"per-word latency: mean {_s(stats.mean)}, median {_s(stats.median)}, p90 {_s(stats.p90)} "
        f"over {stats.words} of {len(timed.words)} words (word end times: {timed.source})",
    ]
    if finals:
        lines.append(f"final text ({len(finals)} final records): WER {_percent(WerCounts(**scored['final_wer']))}")
    if out_dir is not None:
        if given.entry is not None:
            name, kind, duration = given.entry.name, given.entry.kind, given.entry.duration_s
        else:
            from engine.audio.files import SAMPLE_RATE, load_audio

            name, kind, duration = str(audio), "other", len(load_audio(audio)) / SAMPLE_RATE
        totals = {k: v for k, v in (done or {}).items() if k != "type"}
        totals.setdefault("audio_s", duration)
        log = ResultsLog(out_dir / "results.jsonl", resume=True)
        log.append(
            {
                "type": "stream",
                "config": label,
                "settings": None,
                "pace": "external",
                "role": "measured",
                "file": name,
                "kind": kind,
                "duration_s": duration,
                "words": [r for r in records if r.get("type") == "word"],
                "finals": [r for r in records if r.get("type") == "final"],
                "done": totals,
                **scored,
            }
        )
        from tools.bench.report import write_report

        _, written = write_report(log.records, out_dir)
        lines.append(f"added to {out_dir / 'results.jsonl'}; report rewritten: {', '.join(p.name for p in written)}")
    return "\n".join(lines)


def _percent(counts: WerCounts) -> str:
    return "–" if counts.wer is None else f"{counts.wer * 100:.1f} %"


def _s(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f} s"
