"""Word timings from a Praat TextGrid (forced alignment), short or long text format."""

from __future__ import annotations

import re
from pathlib import Path

from engine.errors import WhisperFlowError
from engine.session.words import Word

_TOKEN = re.compile(r'"((?:[^"]|"")*)"|(<exists>|<absent>)|(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)')
_INDEX = re.compile(r"\[\d*\]")


def _tokens(text: str) -> list[str | float]:
    """Strings and numbers in file order; keys (``xmin =``) and ``item [1]:`` indices are dropped."""
    out: list[str | float] = []
    for line in text.splitlines():
        line = _INDEX.sub("", line)
        for quoted, flag, number in _TOKEN.findall(line):
            if flag:
                out.append(flag)
            elif number and not quoted:
                out.append(float(number))
            else:
                out.append(quoted.replace('""', '"'))
    return out


def read_textgrid_words(path: Path, tier: str = "words") -> list[Word]:
    """The non-empty intervals of the named interval tier, as words with start/end seconds."""
    path = Path(path)
    try:
        tokens = _tokens(path.read_text(encoding="utf-8", errors="replace"))
        if tokens[:2] != ["ooTextFile", "TextGrid"] or tokens[4] != "<exists>":
            raise ValueError("not a TextGrid with tiers")
        pos, n_tiers = 6, int(tokens[5])
        for _ in range(n_tiers):
            kind, name, n = tokens[pos], tokens[pos + 1], int(tokens[pos + 4])
            pos += 5
            width = 3 if kind == "IntervalTier" else 2
            items = [tokens[pos + i * width : pos + (i + 1) * width] for i in range(n)]
            pos += n * width
            if name == tier and kind == "IntervalTier":
                return [Word(str(label).strip(), float(a), float(b)) for a, b, label in items if str(label).strip()]
    except (ValueError, IndexError, TypeError) as exc:
        raise WhisperFlowError(f"cannot read the TextGrid {path}: {exc}") from exc
    raise WhisperFlowError(f"TextGrid {path} has no interval tier named {tier!r}")
