"""When a round's words are confirmed: the emission policies (``--emit``).

- ``agreement``: LocalAgreement-2, as Whisper-Streaming: a word is confirmed once two rounds agree on it; with a
  margin, also only once the newest round has heard margin_s of audio after it (rounds a fraction of a second
  apart hear nearly the same audio, so their agreeing on the word at the very end proves little); with a gap,
  between rounds whose audio ends at least that far apart, and a longer one for a word the round is unsure of.
- ``alignatt``: AlignAtt, as SimulStreaming: a word is confirmed by the first round in which it ends at least
  margin_s before the end of the round's audio (its cross-attention has moved past it); one pass, no second
  round.
- ``hybrid``: agreement, and AlignAtt for the words the round is sure of (probability ≥ SURE).

Under every policy, the last word of a round the guard ended waits: it may go on in the next round's audio, and
its end time runs to the end of the round's audio, which would hide the next word from the agreement.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from itertools import groupby

from engine.runtime.logs import WordList
from engine.session.words import Word
from engine.stream.agreement import HypothesisBuffer

EMIT_POLICIES = ("agreement", "alignatt", "hybrid")
SURE = 0.6  # hybrid: a word this probable needs no second round
MIN_ALIGNED_S = 0.04  # a word shorter than this has no place of its own in the audio (words a round invents, e.g.
# a repeat of its prompt, are squeezed to one instant): it is not confirmed on its alignment

log = logging.getLogger(__name__)


def without_squeezed(words: list[Word], run: int = 3) -> list[Word]:
    """The words of a round without runs of `run` or more words each shorter than MIN_ALIGNED_S: words squeezed
    into one instant are not in the audio (a round repeating its prompt puts them there)."""
    kept: list[Word] = []
    for short, group in groupby(words, key=lambda w: w.duration < MIN_ALIGNED_S):
        group = list(group)
        if not (short and len(group) >= run):
            kept += group
        else:
            log.debug("squeezed: dropped %s (%d words, each under %.2f s)", WordList(group), len(group), MIN_ALIGNED_S)
    return kept


def aligned_prefix(
    words: list[Word], limit: float, min_probability: float = 0.0, min_duration: float = MIN_ALIGNED_S
) -> int:
    """How many leading words end by limit (stream time), last at least min_duration and have at least
    min_probability (a guarded round's last word is held back by HypothesisBuffer.flush)."""
    n = 0
    while (
        n < len(words)
        and words[n].end <= limit
        and words[n].probability >= min_probability
        and words[n].duration >= min_duration
    ):
        n += 1
    return n


@dataclass(frozen=True)
class Emission:
    """An emission policy, its margin (AlignAtt's; for agreement, audio heard after the word) and agreement gaps."""

    policy: str = "agreement"
    margin_s: float = 0.0
    gap_s: float = 0.0  # agreement between rounds whose audio ends at least this far apart (0: the last rounds)
    unsure_gap_s: float = 0.0  # the same for a word its round is unsure of (HypothesisBuffer.flush; 0: gap_s)

    def __post_init__(self) -> None:
        if self.policy not in EMIT_POLICIES:
            raise ValueError(f"unknown emission policy {self.policy!r}; choose one of: {', '.join(EMIT_POLICIES)}")

    def confirm(self, hypothesis: HypothesisBuffer, round_end: float, guarded: bool) -> list[Word]:
        """Confirm what this policy allows of the round just inserted into hypothesis; round_end is the end
        of its audio on the stream clock, guarded whether the guard ended its decoding."""
        if self.policy == "agreement":
            heard = (
                aligned_prefix(hypothesis.new, round_end - self.margin_s, min_duration=0.0) if self.margin_s else None
            )
            return hypothesis.flush(
                hold_last=guarded, heard=heard, round_end=round_end, gap_s=self.gap_s, unsure_gap_s=self.unsure_gap_s
            )
        sure = SURE if self.policy == "hybrid" else 0.0
        n = aligned_prefix(hypothesis.new, round_end - self.margin_s, sure)
        return hypothesis.flush(
            aligned=n,
            agree=self.policy == "hybrid",
            hold_last=guarded,
            round_end=round_end,
            gap_s=self.gap_s,
            unsure_gap_s=self.unsure_gap_s,
        )
