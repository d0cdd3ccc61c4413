"""LocalAgreement-2 over timestamped words, as in Whisper-Streaming's HypothesisBuffer.

A word is confirmed once two of the last three rounds agree on it (the newest and one of the two
before: one odd round does not stall confirmation). Times are on the stream clock.
Rounds agree on a word when its letters and digits agree: "books," and "books" are the same
word (the later round's spelling is kept), so a comma moving does not stall confirmation.
"""

from __future__ import annotations

import logging

from engine.runtime.logs import WordList
from engine.scoring.align import Pair, align
from engine.session.words import Word

# Without agreement a word is not confirmed if it is stretched over seconds, nearly improbable, or starts
# seconds after the previous word: the signs of a round whose few words were spread over audio it skipped.
MAX_FORCED_WORD_S = 2.0
MIN_FORCED_PROBABILITY = 0.05
MAX_FORCED_GAP_S = 3.0
RESAID_MISSES = 0.25  # a round says the buffer's confirmed words again if it misses, respells or adds words among
# them for at most this share of them
MAX_HISTORY = 16  # rounds kept for agreement across a gap (flush's gap_s) and for the max-delay rule
UNSURE = 0.3  # a word its round gives less probability than this is a guess (flush's unsure_gap_s)

log = logging.getLogger(__name__)


def spelling(text: str) -> str:
    """A word's letters and digits, lower case."""
    return "".join(c for c in text.lower() if c.isalnum())


def same_word(a: str, b: str) -> bool:
    """Equal ignoring case and punctuation."""
    return spelling(a) == spelling(b)


def agreed(a: list[Word], b: list[Word]) -> int:
    """Length of the common prefix of two rounds' words."""
    n = 0
    while n < min(len(a), len(b)) and same_word(a[n].text, b[n].text):
        n += 1
    return n


def _inside(pairs: list[Pair]) -> int:
    """How many words an alignment inserts between its first and last hit: words a round says among the confirmed
    ones that no confirmed word stands for."""
    hits = [i for i, p in enumerate(pairs) if p.op == "hit"]
    return sum(1 for p in pairs[hits[0] : hits[-1]] if p.op == "ins") if hits else 0


def plausible(w: Word, previous_end: float) -> bool:
    """Whether a word that follows previous_end may be confirmed without agreement."""
    return not implausible(w, previous_end)


def implausible(w: Word, previous_end: float) -> str:
    """Why a word that follows previous_end may not be confirmed without agreement ("" if it may)."""
    if w.duration > MAX_FORCED_WORD_S:
        return f"stretched {w.duration:.1f} s"
    if w.probability < MIN_FORCED_PROBABILITY:
        return f"probability {w.probability:.2f}"
    if w.start - previous_end > MAX_FORCED_GAP_S:
        return f"starts {w.start - previous_end:.1f} s after the word before"
    return ""


class HypothesisBuffer:
    """Holds the recent rounds' unconfirmed words and confirms the prefix the next round repeats."""

    def __init__(self) -> None:
        self.committed_in_buffer: list[Word] = []
        self.buffer: list[Word] = []  # the last round's unconfirmed words
        self.new: list[Word] = []
        self.last_committed_time = 0.0
        # (audio end, words still unconfirmed) of the recent rounds, newest last: the rounds to agree with
        self.history: list[tuple[float, list[Word]]] = []

    def insert(self, words: list[Word], offset: float) -> None:
        """Take a round's words (times relative to the buffer starting at offset). A word whose middle lies before
        the end of the confirmed words was already said, however this round spells it. Whisper-Streaming tests
        the word's start instead (with 0.1 s of slack), which loses a word whenever the confirmed word before it was
        timed to end inside it (word ends near a round's audio end run late: "15th" confirmed as ending at
        31.20 s, "century" then heard at 31.04-31.40 s; docs/bench/agreement-midpoint)."""
        shifted = [w.shifted(offset) for w in words]
        self.new = self._after_resaid(shifted)
        if log.isEnabledFor(logging.DEBUG) and len(self.new) < len(shifted):
            kept = {id(w) for w in self.new}
            said = [w for w in shifted if id(w) not in kept]
            if said == shifted[: len(said)]:
                log.debug("agreement: the round's first %d words were confirmed before", len(said))
            else:
                log.debug("agreement: taken as confirmed before: %s", WordList(said))
        if self.new and abs(self.new[0].start - self.last_committed_time) < 1 and self.committed_in_buffer:
            # drop an n-gram (n ≤ 5) the round repeats from the end of what is already confirmed
            for n in range(1, min(len(self.committed_in_buffer), len(self.new), 5) + 1):
                tail = self.committed_in_buffer[-n:]
                if all(same_word(c.text, w.text) for c, w in zip(tail, self.new[:n])):
                    log.debug("agreement: dropped %s, a repeat of the last confirmed words", WordList(self.new[:n]))
                    del self.new[:n]
                    break

    def flush(
        self,
        aligned: int = 0,
        agree: bool = True,
        hold_last: bool = False,
        heard: int | None = None,
        round_end: float = 0.0,
        gap_s: float = 0.0,
        unsure_gap_s: float = 0.0,
    ) -> list[Word]:
        """Confirm the longest prefix this round shares with either of the two before (with agree; of its first
        `heard` words if given), or its first `aligned` words if that is more (engine.stream.emission); keep the
        rest. hold_last: never the round's last word (its audio was cut under it, so its end runs to the cut).
        gap_s: agree instead with the two latest rounds whose audio ended at least gap_s before this round's
        (round_end): rounds a fraction of a second apart hear nearly the same audio and share their mistakes.
        unsure_gap_s: a word this round is UNSURE of needs agreement with a round at least this much older: rounds
        guessing at the same audio guess alike ("How do you marry" for "Had he married"; docs/bench/unsure)."""
        n = max(agreed(self.new, other) for other in self._partners(round_end, gap_s)) if agree else 0
        if n and unsure_gap_s > gap_s:
            far = max(agreed(self.new, other) for other in self._partners(round_end, unsure_gap_s))
            sure = n
            n = next((i for i in range(far, n) if self.new[i].probability < UNSURE), n)
            if n < sure:
                log.debug(
                    "agreement: %s is unsure: waits for a round %.2f s older",
                    WordList(self.new[n : n + 1]),
                    unsure_gap_s,
                )
        agreeing = n
        n = max(min(n, len(self.new) if heard is None else heard), aligned)
        if hold_last and n == len(self.new) > 0:
            log.debug(
                "agreement: holds back the round's last word %s (its audio was cut under it)", WordList(self.new[-1:])
            )
        if hold_last:
            n = max(0, min(n, len(self.new) - 1))
        confirmed = self.new[:n]
        self.buffer, self.new = self.new[n:], []
        self.history = self.history[-MAX_HISTORY + 1 :] + [(round_end, self.buffer)]
        self._confirm(confirmed)
        if confirmed:
            log.debug(
                "agreement: confirmed %s (round ending %.2f s: %d agreed, %d aligned, %s heard)",
                WordList(confirmed),
                round_end,
                agreeing,
                aligned,
                "all" if heard is None else heard,
            )
        return confirmed

    def _partners(self, round_end: float, gap_s: float) -> list[list[Word]]:
        """The rounds this one must agree with (one of them): the two before it, or the two latest at least
        gap_s older."""
        latest = round_end - gap_s if gap_s else float("inf")
        return [words for end, words in self.history if end <= latest][-2:] or [[]]

    def _confirm(self, words: list[Word]) -> None:
        if words:
            self.last_committed_time = words[-1].end
            self.committed_in_buffer.extend(words)
            self.history = [(end, self._unsaid(ws)) for end, ws in self.history]

    def _after_resaid(self, words: list[Word]) -> list[Word]:
        """The round's new words, found by text where it says the confirmed words at the buffer's start again.

        A round re-transcribes its buffer from the start, and the buffer starts with confirmed words. Where the
        round says them again, in order (at most RESAID_MISSES of them missing or spelled otherwise, or words said
        among them, the last one said), they are those words however the round timed them, and every word after them
        is new. A round that says nothing but confirmed words has nothing new. Otherwise the words _unsaid finds new,
        by time.
        By time alone, words were lost when a round timed the confirmed words late: one said only "movable type
        the" again, at the end of its audio, and the speech it had not reached counted as already said; another
        confirmed "the" at the end of its audio, 1.6 s late, and "aforesaid Gutenberg" before it was lost
        (docs/bench/resaid). By text alone, words said among the confirmed ones were lost: rounds stuck on "took a",
        the "a" stretched to their audio's end, confirmed it; the round that said "took impressions from … by a
        similar" paired that "a" with the one after "by", and 16 words counted as already said."""
        confirmed = self.committed_in_buffer
        if not confirmed or not words:
            return self._unsaid(words)
        # aligned back to front, so that a word said twice pairs with its first copy
        pairs = align([spelling(w.text) for w in reversed(confirmed)], [spelling(w.text) for w in reversed(words)])
        said = {len(words) - 1 - p.hyp: len(confirmed) - 1 - p.ref for p in pairs if p.op == "hit"}
        if len(said) == len(words):
            return []
        last = next((k for k, c in said.items() if c == len(confirmed) - 1), None)
        if last is not None and len(confirmed) - len(said) + _inside(pairs) <= RESAID_MISSES * len(confirmed):
            return words[last + 1 :]
        return self._unsaid(words)

    def _unsaid(self, words: list[Word]) -> list[Word]:
        """The words whose middle lies after the end of the confirmed words (see insert), and every word after
        the round's own copy of the last confirmed word, which is dropped: a word squeezed into the instant where
        that word ends is new however it is timed ("in" confirmed at 7.82-8.16 s, the next round's "in modern"
        timed 7.82-8.16 and 8.14-8.14; docs/bench/squeezed-word), and a copy spelled in two words is no new word
        ("maybe" confirmed at 2.66-2.78 s, the next round's "may be" at 2.06-2.64 and 2.64-2.98)."""
        start, end = self._copy_of_last_confirmed(words)
        return [
            w
            for i, w in enumerate(words)
            if i >= end or (i < start and (w.start + w.end) / 2 > self.last_committed_time)
        ]

    def _copy_of_last_confirmed(self, words: list[Word]) -> tuple[int, int]:
        """Where words say the last confirmed word again, overlapping it in time: the latest word, or run of up
        to three words, that spells it; (len(words), len(words)) if none does."""
        if self.committed_in_buffer:
            last = self.committed_in_buffer[-1]
            for end in range(len(words), 0, -1):
                for start in range(end - 1, max(end - 3, 0) - 1, -1):
                    run = words[start:end]
                    if (
                        same_word("".join(w.text for w in run), last.text)
                        and run[0].start <= last.end
                        and last.start <= run[-1].end
                    ):
                        return start, end
        return len(words), len(words)

    def pop_committed(self, time: float) -> None:
        """Forget confirmed words that end before the audio buffer's new start."""
        while self.committed_in_buffer and self.committed_in_buffer[0].end <= time:
            self.committed_in_buffer.pop(0)

    def confirm_until(self, time: float, since: float, shown_by: float | None = None) -> list[Word]:
        """Confirm the leading unconfirmed words that end by time, up to the first implausible one
        (the buffer, which starts at since, must move on without agreement). With shown_by (the max-delay
        rule), only words whose place in the audio was already tentative in a round that ended by then."""
        shown = [ws for end, ws in self.history if end <= shown_by] if shown_by is not None else None

        def waited(w: Word) -> bool:
            return shown is None or any(o.start < w.end and w.start < o.end for ws in shown for o in ws)  # overlap

        n, previous_end = 0, max(self.last_committed_time, since)
        while (
            n < len(self.buffer)
            and self.buffer[n].end <= time
            and plausible(self.buffer[n], previous_end)
            and waited(self.buffer[n])
        ):
            previous_end = self.buffer[n].end
            n += 1
        if n < len(self.buffer) and self.buffer[n].end <= time and log.isEnabledFor(logging.DEBUG):
            why = implausible(self.buffer[n], previous_end) or "not tentative by the delay yet"
            log.debug("without agreement: not confirmed: %s, %s", WordList(self.buffer[n : n + 1]), why)
        forced, self.buffer = self.buffer[:n], self.buffer[n:]
        self._confirm(forced)
        return forced

    def confirm_all(self) -> list[Word]:
        """Confirm every unconfirmed word (the stream has ended)."""
        words, self.buffer = self.buffer, []
        self._confirm(words)
        return words

    def tentative(self) -> list[Word]:
        """Words of the last round that are not confirmed yet."""
        return list(self.buffer)
