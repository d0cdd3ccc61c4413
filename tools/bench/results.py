"""The run's raw results: results.jsonl in the output folder, one record per line, appended and flushed
as each file finishes, so that an interrupted run keeps everything it finished."""

from __future__ import annotations

import json
from pathlib import Path

from engine.errors import WhisperFlowError


class ResultsLog:
    """Append-only JSON-lines log of meta, offline and stream records."""

    def __init__(self, path: Path, resume: bool = False):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._records = self._read() if resume else []
        # Rewritten whole: a fresh run starts empty, a resumed one drops a line cut off by a crash.
        self.path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self._records), encoding="utf-8")

    def _read(self) -> list[dict]:
        if not self.path.exists():
            return []
        lines = self.path.read_text(encoding="utf-8").splitlines()
        records = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except ValueError:
                if number < len(lines):  # only the last line, cut off by a crash, may be broken
                    raise WhisperFlowError(f"{self.path} line {number} is not JSON; start a fresh run") from None
        return records

    @property
    def records(self) -> list[dict]:
        return list(self._records)

    def append(self, record: dict) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
            f.flush()
        self._records.append(record)

    def has(self, **match) -> bool:
        """Whether a record with these field values is already in the log."""
        return any(all(r.get(k) == v for k, v in match.items()) for r in self._records)
