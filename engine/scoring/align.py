"""Minimal edit-distance alignment of two token sequences (Levenshtein, with the path)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pair:
    """One step of an alignment: ref index and/or hyp index; op is hit, sub, del (ref only) or ins (hyp only)."""

    ref: int | None
    hyp: int | None
    op: str


def align(ref: list[str], hyp: list[str]) -> list[Pair]:
    """A minimal-cost alignment (substitution, deletion, insertion cost 1 each).

    Among equally cheap alignments, the backtrace (from the end) prefers a hit, then a gap, then a
    substitution: identical words are paired whenever that costs nothing extra, and a word is
    paired with a different one only where no equally cheap alignment leaves it out.
    """
    n, m = len(ref), len(hyp)
    cost = [[i + j if i == 0 or j == 0 else 0 for j in range(m + 1)] for i in range(n + 1)]
    for i in range(1, n + 1):
        above, row, r = cost[i - 1], cost[i], ref[i - 1]
        for j in range(1, m + 1):
            row[j] = min(above[j - 1] + (r != hyp[j - 1]), above[j] + 1, row[j - 1] + 1)
    pairs: list[Pair] = []
    i, j = n, m
    while i or j:
        if i and j and ref[i - 1] == hyp[j - 1] and cost[i][j] == cost[i - 1][j - 1]:
            pairs.append(Pair(i - 1, j - 1, "hit"))
            i, j = i - 1, j - 1
        elif i and cost[i][j] == cost[i - 1][j] + 1:
            pairs.append(Pair(i - 1, None, "del"))
            i -= 1
        elif j and cost[i][j] == cost[i][j - 1] + 1:
            pairs.append(Pair(None, j - 1, "ins"))
            j -= 1
        else:
            pairs.append(Pair(i - 1, j - 1, "sub"))
            i, j = i - 1, j - 1
    return pairs[::-1]
