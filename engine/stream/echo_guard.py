"""The transcript-level echo guard of a call: a You word that repeats a Them word said at about the same time is
the other side's voice from the speakers reaching the microphone, not yours, and is dropped."""

from __future__ import annotations

import logging
from bisect import bisect_right
from dataclasses import replace

from engine.runtime.logs import WordList
from engine.session.events import FinalEvent, StreamUpdate
from engine.session.words import Word
from engine.stream.agreement import spelling

SAME_TIME_S = 1.0  # a You word starting this close to a Them word's start repeats it: an echo is 0.06–0.15 s late,
# but the two streams time the same word up to about 1 s apart (at 0.5 s, 2.4 % of Them's words still came through
# as You on the call fixture at -10 dB, at 1.0 s 0.6 %, with none of your own words dropped: docs/bench/call)
STEM_LETTERS = 4  # a word this long or longer that begins another ("exhibition", "exhibitions") is the same word
REMEMBER_S = 30.0  # Them's words kept this long after the newest (a final pass decodes at most 25 s again)

log = logging.getLogger(__name__)


def _same(a: str, b: str) -> bool:
    """The same word, or one its other form begins with (an echo may be heard with another ending)."""
    short, long = sorted((a, b), key=len)
    return short == long or (len(short) >= STEM_LETTERS and long.startswith(short))


def _words(update: StreamUpdate) -> list[Word]:
    return [*update.confirmed, *(w for f in update.finals for w in f.words)]


class EchoGuard:
    """Hears Them's updates (``hear``) and filters You's (``filter``): words, tentative words and final texts that
    repeat Them's are dropped, and You's final records are renumbered to count only the words kept."""

    def __init__(self, same_time_s: float = SAME_TIME_S):
        self.same_time_s = same_time_s
        self.heard: list[Word] = []  # Them's confirmed and final words, by start
        self.tentative: list[Word] = []  # Them's latest unconfirmed tail
        self.kept_before = [0]  # kept_before[i]: You's words kept among its first i confirmed ones
        self.dropped = 0
        self.them_until = 0.0  # Them's stream has heard its audio up to here (stream seconds)
        self.waiting: list[StreamUpdate] = []  # You's updates held until Them's stream has heard past their words

    def hear(self, update: StreamUpdate, until: float = float("inf")) -> None:
        """Them's new words (confirmed, final and tentative); until: how far Them's stream has heard (inf: to its
        end)."""
        self.them_until = until
        words = _words(update)
        self.heard = sorted([*self.heard, *words], key=lambda w: w.start)
        if self.heard:
            newest = self.heard[-1].end
            self.heard = [w for w in self.heard if w.end >= newest - REMEMBER_S]
        self.tentative = list(update.tentative)

    def echoes(self, word: Word) -> bool:
        """Whether word repeats one of Them's words said at about the same time."""
        said = spelling(word.text)
        if not said:
            return False
        lo = bisect_right([w.start for w in self.heard], word.start - self.same_time_s)
        near = (w for w in self.heard[lo:] if w.start <= word.start + self.same_time_s)
        close = (w for w in self.tentative if abs(w.start - word.start) <= self.same_time_s)
        return any(_same(spelling(w.text), said) for w in (*near, *close))

    def _kept(self, words: list[Word], what: str) -> list[Word]:
        kept = [w for w in words if not self.echoes(w)]
        if len(kept) < len(words):
            log.debug("echo guard: %s drops %s", what, WordList([w for w in words if w not in kept]))
        return kept

    def _judged(self, word: Word) -> bool:
        """Whether Them's stream has heard far enough past word to tell whether it is an echo."""
        return word.start + self.same_time_s <= self.them_until

    def hold(self, update: StreamUpdate) -> list[StreamUpdate]:
        """You's update waits with those before it until each of its words can be judged; the updates now ready."""
        self.waiting.append(update)
        return self.ready()

    def ready(self, now: float = 0.0) -> list[StreamUpdate]:
        """You's waiting updates whose words Them's stream has heard past, filtered (a word confirmed before now,
        Them's clock, is stamped as confirmed now: that is when it is shown)."""
        out = []
        while self.waiting and all(self._judged(w) for w in _words(self.waiting[0])):
            update = self.filter(self.waiting.pop(0))
            confirmed = [replace(w, emitted=max(w.emitted, now)) for w in update.confirmed]
            out.append(replace(update, confirmed=confirmed, tentative=[w for w in update.tentative if self._judged(w)]))
        return out

    def filter(self, update: StreamUpdate) -> StreamUpdate:
        """You's update without the words that echo Them's."""
        confirmed = []
        for w in update.confirmed:
            echo = self.echoes(w)
            self.kept_before.append(self.kept_before[-1] + (not echo))
            if echo:
                self.dropped += 1
                log.debug("echo guard: drops %s at %.2f s", w.text, w.start)
            else:
                confirmed.append(w)
        finals = [self._renumbered(f) for f in update.finals]
        tentative = self._kept(list(update.tentative), "tentative")
        return replace(update, confirmed=confirmed, tentative=tentative, finals=finals)

    def _renumbered(self, final: FinalEvent) -> FinalEvent:
        """The final record counting only the kept words, without the words that echo Them's."""
        first = self.kept_before[final.first]
        count = self.kept_before[final.first + final.count] - first
        return replace(final, first=first, count=count, words=self._kept(final.words, "final text"))
