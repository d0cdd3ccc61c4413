"""Utterance finalization: each utterance decoded again once it ends, with full context, as offline decodes it.

The rounds confirm words fast, from a second or two of audio after each word; where tiny.en guesses, rounds a
fraction of a second apart agree on the same guess. Once an utterance ends (the voice-activity detector hears a
pause, the speech runs past a length limit, or the stream ends), its audio is decoded again together with up to
CONTEXT_S of the audio before it, with the hush word (Transcriber.final_pass), at beam 5, prompted with the final
text before that audio, as offline's 30 s windows hear it; the words in the utterance replace its confirmed words (a
fast first pass rescored at each endpoint, as in U2's two passes). The final text already heard and the utterance's
confirmed words guide the beam (beam 1 while the decoding reads them, the full beam where it hears otherwise); a
confirmed word of the words to know that it replaced by another keeps its place (Vocabulary.keep_listed). An
utterance whose every confirmed word its round heard as sure (the final_sure setting) is final as confirmed:
decoding it again cost CPU and changed no word that counted; unless its confirmed words leave out speech the
voice-activity detector heard (the rounds never confirmed a word there, so no guess of theirs shows it). A
decoding that leaves out speech the confirmed words covered (a window decoding sometimes skips a sentence) is not
used. The decoding runs on a worker thread of its own, so the rounds go on.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np
from mlx_whisper.audio import CHUNK_LENGTH

from engine.audio.files import SAMPLE_RATE
from engine.audio.vad import SpeechDetector
from engine.session.events import FinalEvent, WordEvent
from engine.session.words import Word
from engine.stream.emission import without_squeezed
from engine.stream.processor import ROOM_S, RoundTranscriber, prompt_before

log = logging.getLogger(__name__)

MAX_UTTERANCE_S = 20.0  # speech without a pause is finalized in pieces of about this length (a 30 s window holds it)
MIN_GAP_S = 0.1  # a piece ends in a gap of at least this much between two confirmed words, where there is one
KEEP_AUDIO_S = 30.0  # audio kept while no confirmed word waits (a round's window is shorter)
CONTEXT_S = 20.0  # audio before the utterance decoded with it, for context (its words are the last utterance's):
# the final text then reads as offline's, whose 30 s windows hear that much (docs/bench/finalize)
EDGE_S = 0.1  # a decoded word starting this close to the audio's end is a guess at how the speech goes on (a real
# one ends before a pause, or before the gap where a long utterance is cut)
MARGIN_S = 0.05  # a word of the final text ending this little after the audio's start is before it
WINDOW_S = CHUNK_LENGTH - ROOM_S  # the most audio one final decoding hears, as a round's (25 s; at 28 s the
# long-form file's final text made 27 errors against 18: a nearly full window is read worse)
LEAD_S = 2.0  # audio decoded at most before an utterance's first confirmed word (its start may be timed late)
KEEP_RATIO = 0.5  # a decoding with fewer words than this share of the confirmed ones skipped speech: not used
COVER_S = 0.2  # a confirmed word covers the speech this close to it (its times are a round's alignment)
SKIPPED_S = 1.0  # a decoding that leaves this much more of the detector's speech without a word than the confirmed
# words did skipped a phrase the rounds heard (a telephone call's "The box was thrown beside the park truck."): not used


@dataclass(frozen=True)
class FinalPolicy:
    """Which ended utterances are decoded again (`flow`'s final_sure and final_uncovered_s settings): every one but
    those whose every confirmed word has probability sure or more (1: none is spared) and whose words leave less than
    uncovered_s of the speech the voice-activity detector heard in them uncovered."""

    sure: float = 1.0
    uncovered_s: float = 0.0


@dataclass(frozen=True)
class _Span:
    """The audio of one final decoding (stream seconds): heard from heard_from, its words kept from start to end."""

    heard_from: float
    start: float
    end: float


@dataclass
class _Utterance:
    """Confirmed words waiting for their utterance to end: the first one's index in the stream, and the words."""

    first: int
    words: list[WordEvent]


def plain(words: list[WordEvent]) -> list[Word]:
    """Confirmed words as words of a final text (without when they were confirmed)."""
    return [Word(w.text, w.start, w.end, w.probability) for w in words]


def uncovered(runs: list[tuple[float, float]], words: Sequence[Word | WordEvent]) -> float:
    """Seconds of the runs of speech that no word covers (each word widened by COVER_S on either side)."""
    spans: list[list[float]] = []
    for w in sorted(words, key=lambda w: w.start):
        if spans and w.start - COVER_S <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], w.end + COVER_S)
        else:
            spans.append([w.start - COVER_S, w.end + COVER_S])
    covered = sum(max(0.0, min(b, d) - max(a, c)) for a, b in runs for c, d in spans)
    return sum(b - a for a, b in runs) - covered


def accepted(final: list[Word], confirmed: list[WordEvent], speech: list[tuple[float, float]] | None = None) -> bool:
    """Whether a final decoding may replace the confirmed words: it said something, not much less, and it leaves
    less than SKIPPED_S more of the speech the detector heard (speech: its runs; None: not known) without a word
    than they did (a window decoding sometimes skips a sentence; the rounds heard it)."""
    if not final or len(final) < KEEP_RATIO * len(confirmed):
        return False
    return speech is None or uncovered(speech, final) < uncovered(speech, confirmed) + SKIPPED_S


class Finalizer:
    """Collects a stream's audio and confirmed words and finalizes each utterance once it ends.

    The stream calls ``add_audio`` with every chunk, ``add_confirmed`` with every confirmed word in order,
    ``pause`` when the detector hears a pause, ``check_length`` after each round, and ``finish`` at the end;
    ``ready`` returns the final records decoded so far, in order.
    """

    def __init__(
        self,
        transcriber: RoundTranscriber,
        submit: Callable[[Callable[[], FinalEvent]], Future],
        clock: Callable[[], float],
        max_utterance_s: float = MAX_UTTERANCE_S,
        context_s: float = CONTEXT_S,
        guided: bool = True,
        confirmed_guide: bool = True,
        policy: FinalPolicy = FinalPolicy(),
        detector: SpeechDetector | None = None,
    ):
        """transcriber: the final pass's (the stream transcriber's final_pass()); submit: runs a job on the worker
        thread; clock: the stream clock, for when an utterance ended; guided: the final text already heard before
        the utterance is the decoding's reference there (read at beam 1, checked in one pass; docs/bench/finalize);
        confirmed_guide: the utterance's confirmed words follow it in the reference, so the decoding re-reads them at
        beam 1 too and widens the beam where it hears otherwise; policy: which utterances are decoded again, the
        speech in them as detector (the stream's voice-activity detector, fed the same audio first) heard it."""
        self.transcriber = transcriber
        self.submit = submit
        self.clock = clock
        self.max_utterance_s = max_utterance_s
        self.context_s = context_s
        self.guided = guided
        self.confirmed_guide = confirmed_guide
        self.policy = policy
        self.detector = detector
        self.audio = np.zeros(0, np.float32)
        self.audio_start = 0.0  # stream seconds of self.audio[0]
        self.utterance_start = 0.0  # where the last utterance ended (stream seconds)
        self.confirmed_count = 0
        self.utterance = _Utterance(0, [])
        self.final_words: list[Word] = []  # the final text so far, for the prompt (used on the worker thread only)
        self._jobs: list[Future] = []
        self.finalized = 0  # utterances finalized

    @property
    def audio_end(self) -> float:
        return self.audio_start + len(self.audio) / SAMPLE_RATE

    def add_audio(self, chunk: np.ndarray) -> None:
        """Keep the stream's audio from where it may still be decoded; while no confirmed word waits (silence, or
        speech not confirmed yet), only the last KEEP_AUDIO_S, which a word confirmed later may start in."""
        self.audio = np.concatenate([self.audio, chunk.astype(np.float32)])
        if not self.utterance.words and len(self.audio) > KEEP_AUDIO_S * SAMPLE_RATE:
            cut = len(self.audio) - int(KEEP_AUDIO_S * SAMPLE_RATE)
            self.audio, self.audio_start = self.audio[cut:], self.audio_start + cut / SAMPLE_RATE

    def add_confirmed(self, words: list[WordEvent]) -> None:
        if not self.utterance.words:
            self.utterance.first = self.confirmed_count
        self.utterance.words.extend(words)
        self.confirmed_count += len(words)

    def pause(self) -> None:
        """The speaker paused: the utterance so far is whole."""
        if self.utterance.words:
            self._end_at(self.audio_end, len(self.utterance.words))

    def check_length(self) -> None:
        """Speech without a pause: once the utterance's audio is over the limit, finalize it up to the widest gap
        between two confirmed words in its second half (else up to its last confirmed word but one)."""
        words = self.utterance.words
        if not words:
            return
        if words[-1].end - self._decode_from(words[0]) < self.max_utterance_s:
            return
        half = words[0].start + (words[-1].end - words[0].start) / 2
        gaps = [(b.start - a.end, k) for k, (a, b) in enumerate(zip(words, words[1:]), 1) if a.end >= half]
        gap, count = max(gaps, default=(0.0, max(1, len(words) - 1)))
        if gap < MIN_GAP_S:
            gap, count = 0.0, max(1, len(words) - 1)
        self._end_at(words[count - 1].end + gap / 2, count)

    def finish(self, cut: bool = False) -> list[FinalEvent]:
        """The stream ended: finalize what is left and wait for every decoding (records without their clock).
        cut: it was stopped mid-speech, so its last utterance keeps its confirmed words (a decoding of the cut-off
        audio finishes the phrase with a guess, where the stopped stream's last round held back the cut word)."""
        if self.utterance.words:
            self._end_at(self.audio_end, len(self.utterance.words), decode=not cut)
        jobs, self._jobs = self._jobs, []
        return [job.result() for job in jobs]

    def ready(self) -> list[FinalEvent]:
        """The final records decoded so far, in order (a later one waits for an earlier one still running)."""
        done = []
        while self._jobs and self._jobs[0].done():
            done.append(self._jobs.pop(0).result())
        return done

    def _decode_from(self, first: WordEvent) -> float:
        """Where an utterance's audio starts: where the last one ended (a pause, or a gap between two words), unless
        that is long before its first word (silence, or speech no word was confirmed for)."""
        return max(self.utterance_start, self.audio_start, first.start - LEAD_S)

    def _end_at(self, end: float, count: int, decode: bool = True) -> None:
        """Finalize the utterance's first count words, over its audio up to end (stream seconds); the audio after
        end is the next utterance's. Without decode, its final text is its confirmed words."""
        words, first = self.utterance.words[:count], self.utterance.first
        start = self._decode_from(words[0])
        heard_from = min(start, max(self.audio_start, start - self.context_s, end - WINDOW_S))
        audio = self.audio[self._sample(heard_from) : self._sample(end)]
        paused = self.clock()
        self.utterance = _Utterance(first + count, self.utterance.words[count:])
        self.utterance_start = end
        kept_from = self._sample(end - self.context_s)
        self.audio, self.audio_start = self.audio[kept_from:], self.audio_start + kept_from / SAMPLE_RATE
        self.finalized += 1
        span = _Span(heard_from, start, end)
        speech = self.detector.runs_between(start, end) if self.detector else None
        if not decode or self._sure(words, speech):
            self._jobs.append(self.submit(lambda: self._record(first, len(words), plain(words), paused)))
            return
        self._jobs.append(self.submit(lambda: self._final(audio, span, first, words, paused, speech)))

    def _sure(self, words: list[WordEvent], speech: list[tuple[float, float]] | None) -> bool:
        """Whether the rounds were sure of an utterance: every confirmed word is sure, and they cover the speech the
        detector heard in its audio (speech: its runs; None: not known)."""
        sure, uncovered_s = self.policy.sure, self.policy.uncovered_s
        if sure >= 1.0 or any(w.probability < sure for w in words):
            return False
        return speech is None or uncovered(speech, words) < uncovered_s

    def _sample(self, time: float) -> int:
        """The index in self.audio of a stream time."""
        return max(0, int(round((time - self.audio_start) * SAMPLE_RATE)))

    def _reference(self, span: _Span, confirmed: list[WordEvent]) -> list[int] | None:
        """The decoding's reference, where guided: the tokens of the final text already heard in the span's audio
        before the utterance, then (confirmed_guide) the utterance's confirmed words."""
        heard = [w.text for w in self.final_words if span.heard_from < w.end <= span.start]
        if self.confirmed_guide:
            heard += [w.text for w in confirmed]
        return self.transcriber.text_tokens(" ".join(heard)) if self.guided and heard else None

    def _record(self, first: int, count: int, words: list[Word], paused: float) -> FinalEvent:
        """On the worker thread, in order: the final record of an utterance, its words kept for the prompts after."""
        self.final_words = (self.final_words + words)[-100:]
        return FinalEvent(first, count, words, paused)

    def _final(
        self,
        audio: np.ndarray,
        span: _Span,
        first: int,
        confirmed: list[WordEvent],
        paused: float,
        speech: list[tuple[float, float]] | None,
    ) -> FinalEvent:
        """On the worker thread: the utterance decoded again (with the audio before it, whose words are the last
        utterance's, and the final text before that as the prompt), or its confirmed words where that failed or
        was not accepted (speech: the detector's runs in the utterance's audio)."""
        start, end, began = span.start, span.end, time.perf_counter()
        try:
            prompt = prompt_before(self.final_words, span.heard_from + MARGIN_S)
            said = self.transcriber.transcribe(audio, prompt, self._reference(span, confirmed)).words
        except Exception:  # the confirmed words stand; the stream goes on
            log.exception("final pass failed over %.2f-%.2f s; the confirmed words stand", start, end)
            said = []
        shifted = [
            Word(w.text.strip(), span.heard_from + w.start, span.heard_from + w.end, w.probability) for w in said
        ]
        decoded = without_squeezed(  # a decoding that repeats itself puts the repeat in one instant at the end
            [
                Word(w.text, max(w.start, start), min(w.end, end), w.probability)
                for w in shifted
                if w.text and start <= (w.start + w.end) / 2 and w.start < end - EDGE_S
            ]
        )
        vocabulary = self.transcriber.vocabulary
        if vocabulary is not None:
            decoded = vocabulary.keep_listed(decoded, confirmed)
        kept = plain(confirmed)
        words = decoded if accepted(decoded, confirmed, speech) else kept
        log.debug(
            "final pass %.2f-%.2f s (%.1f s heard, decoded in %.2f s): %r -> %r%s",
            start,
            end,
            end - span.heard_from,
            time.perf_counter() - began,
            " ".join(w.text for w in confirmed),
            " ".join(w.text for w in decoded),
            "" if words is decoded else " (not used)",
        )
        return self._record(first, len(confirmed), words, paused)
