"""The speech corpus manifest (TSV: file, duration_s, kind, reference, ...) and which entries a run uses."""

from __future__ import annotations

import csv
import fnmatch
from dataclasses import dataclass
from pathlib import Path

from engine.errors import WhisperFlowError

DEFAULT_MANIFEST = Path("shared") / "corpus" / "manifest.tsv"
NOT_HEADLINE_KINDS = ("ivr", "odd")  # telephone prompts and deliberately odd speech: not pooled into a headline WER


@dataclass(frozen=True)
class ManifestEntry:
    """One audio file of the corpus; ``name`` is its path as the manifest writes it."""

    name: str
    path: Path
    duration_s: float
    kind: str
    reference: str

    @property
    def textgrid(self) -> Path | None:
        """A forced alignment beside the audio (same stem, .TextGrid), if the corpus has one."""
        candidate = self.path.with_suffix(".TextGrid")
        return candidate if candidate.is_file() else None


def find_default_manifest(start: Path | None = None) -> Path | None:
    """shared/corpus/manifest.tsv in the working directory or the nearest folder above it."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / DEFAULT_MANIFEST
        if candidate.is_file():
            return candidate
    return None


def load_manifest(path: Path) -> list[ManifestEntry]:
    """Every entry of a manifest TSV; file paths are relative to the manifest's folder."""
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
    except OSError as exc:
        raise WhisperFlowError(f"cannot read the manifest {path}: {exc}") from exc
    missing = {"file", "duration_s", "kind", "reference"} - set(rows[0] if rows else {})
    if missing:
        raise WhisperFlowError(f"manifest {path} lacks the column(s) {', '.join(sorted(missing))}")
    entries = []
    for line, row in enumerate(rows, start=2):
        try:
            duration = float(row["duration_s"])
        except ValueError as exc:
            raise WhisperFlowError(f"{path} line {line}: duration_s {row['duration_s']!r} is not a number") from exc
        entries.append(ManifestEntry(row["file"], path.parent / row["file"], duration, row["kind"], row["reference"]))
    return entries


def select(
    entries: list[ManifestEntry], kinds: list[str] | None = None, files: list[str] | None = None, step: int = 1
) -> list[ManifestEntry]:
    """Entries of the given kinds whose manifest path matches one of the patterns (glob or exact name); with a step,
    every step-th of each kind (its first, its step+1-th, …, in the manifest's order)."""
    if kinds:
        known = {e.kind for e in entries}
        unknown = [k for k in kinds if k not in known]
        if unknown:
            raise WhisperFlowError(
                f"no files of kind {', '.join(unknown)} in the manifest; kinds: {', '.join(sorted(known))}"
            )
        entries = [e for e in entries if e.kind in kinds]
    if files:

        def matches(e: ManifestEntry, pattern: str) -> bool:
            return fnmatch.fnmatch(e.name, pattern) or fnmatch.fnmatch(Path(e.name).name, pattern)

        unmatched = [p for p in files if not any(matches(e, p) for e in entries)]
        if unmatched:
            raise WhisperFlowError(f"no manifest file matches {', '.join(unmatched)}")
        entries = [e for e in entries if any(matches(e, p) for p in files)]
    if step > 1:
        kept = {
            id(e)
            for kind in dict.fromkeys(e.kind for e in entries)
            for e in [e for e in entries if e.kind == kind][::step]
        }
        entries = [e for e in entries if id(e) in kept]
    if not entries:
        raise WhisperFlowError("no files selected")
    return entries
