"""LocalAgreement-2 over timestamped words, as in Whisper-Streaming's HypothesisBuffer.

A word is confirmed once two consecutive rounds agree on it. Times are on the stream clock.
Rounds agree on a word when its letters and digits agree: "books," and "books" are the same
word (the later round's spelling is kept), so a comma moving does not stall confirmation.
"""
from __future__ import annotations

from engine.session.words import Word


def same_word(a: str, b: str) -> bool:
    """Equal ignoring case and punctuation."""
    return [c for c in a.lower() if c.isalnum()] == [c for c in b.lower() if c.isalnum()]


class HypothesisBuffer:
    """Holds the last round's unconfirmed words and confirms the prefix the next round repeats."""

    def __init__(self) -> None:
        self.committed_in_buffer: list[Word] = []
        self.buffer: list[Word] = []
        self.new: list[Word] = []
        self.last_committed_time = 0.0

    def insert(self, words: list[Word], offset: float) -> None:
        """Take a round's words (times relative to the buffer starting at offset)."""
        shifted = [Word(w.text, w.start + offset, w.end + offset, w.probability) for w in words]
        self.new = [w for w in shifted if w.start > self.last_committed_time - 0.1]
        if self.new and abs(self.new[0].start - self.last_committed_time) < 1 and self.committed_in_buffer:
            # drop an n-gram (n ≤ 5) the round repeats from the end of what is already confirmed
            for n in range(1, min(len(self.committed_in_buffer), len(self.new), 5) + 1):
                tail = self.committed_in_buffer[-n:]
                if all(same_word(c.text, w.text) for c, w in zip(tail, self.new[:n])):
                    del self.new[:n]
                    break

    def flush(self) -> list[Word]:
        """Confirm the longest common prefix of the previous and this round; keep the rest."""
        confirmed: list[Word] = []
        while self.new and self.buffer and same_word(self.new[0].text, self.buffer[0].text):
            word = self.new.pop(0)
            self.buffer.pop(0)
            confirmed.append(word)
            self.last_committed_time = word.end
        self.buffer, self.new = self.new, []
        self.committed_in_buffer.extend(confirmed)
        return confirmed

    def pop_committed(self, time: float) -> None:
        """Forget confirmed words that end before the audio buffer's new start."""
        while self.committed_in_buffer and self.committed_in_buffer[0].end <= time:
            self.committed_in_buffer.pop(0)

    def confirm_until(self, time: float) -> list[Word]:
        """Confirm the unconfirmed words that end by time (the buffer must move on without agreement)."""
        forced = [w for w in self.buffer if w.end <= time]
        self.buffer = self.buffer[len(forced):] if forced == self.buffer[: len(forced)] else [w for w in self.buffer if w.end > time]
        if forced:
            self.last_committed_time = forced[-1].end
            self.committed_in_buffer.extend(forced)
        return forced

    def tentative(self) -> list[Word]:
        """Words of the last round that are not confirmed yet."""
        return list(self.buffer)
