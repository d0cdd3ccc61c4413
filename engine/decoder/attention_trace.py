"""The alignment heads' cross-attention that a decoder session records as it decodes: the guard reads the newest
step's, and word times come from the winning hypothesis's (engine.decoder.word_timing). Both sessions keep one."""

from __future__ import annotations

import numpy as np


class AttentionTrace:
    """The alignment heads' cross-attention logits of every forwarded position, per hypothesis.

    Each forward call keeps its (batch, n, heads, frames) array; `paths` holds, per live row, which row
    of each call it descends from, so reordering hypotheses only permutes a small index table.
    """

    def __init__(self):
        self.starts: list[int] = []
        self.calls: list[np.ndarray] = []
        self.paths = np.zeros((1, 0), np.int64)

    def add(self, start: int, qk: np.ndarray) -> None:
        rows = np.arange(qk.shape[0])[:, None]
        self.paths = np.hstack([np.broadcast_to(self.paths, (qk.shape[0], self.paths.shape[1])), rows])
        self.starts.append(start)
        self.calls.append(qk)

    def reorder(self, sources: list[int]) -> None:
        self.paths = self.paths[sources]

    def truncate(self, length: int) -> None:
        while self.starts and self.starts[-1] >= length:
            self.starts.pop(), self.calls.pop()
        if self.calls:
            self.calls[-1] = self.calls[-1][:, : length - self.starts[-1]]
        self.paths = self.paths[:, : len(self.calls)]

    def path(self, row: int) -> np.ndarray:
        """A snapshot of one hypothesis's ancestry (valid after later reorders)."""
        return self.paths[row].copy()

    def logits(self, path: np.ndarray, positions: list[int]) -> np.ndarray | None:
        """(heads, len(positions), frames) for the hypothesis with this path; None if one is missing."""
        ends = np.cumsum([c.shape[1] for c in self.calls[: len(path)]])
        if not positions or not len(ends) or max(positions) >= ends[-1]:
            return None
        out = []
        for p in positions:
            c = int(np.searchsorted(ends, p, side="right"))
            out.append(self.calls[c][path[c], p - self.starts[c]])
        return np.stack(out, axis=1)
