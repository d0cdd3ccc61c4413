"""The Whisper-Streaming loop: a sliding audio buffer, rounds, LocalAgreement-2, trimming.

API as in Whisper-Streaming: ``insert_audio_chunk`` / ``process_iter`` / ``finish``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

import numpy as np

from engine.audio.files import SAMPLE_RATE
from engine.audio.vad import SpeechDetector
from engine.decoder.options import DecodeOptions
from engine.runtime.logs import WordList
from engine.session.events import DroppedEvent
from engine.session.transcript import sentence_start
from engine.session.words import Word
from engine.stream.agreement import HypothesisBuffer, spelling
from engine.stream.emission import Emission, without_squeezed
from engine.stream.round import RoundResult
from engine.stream.vocabulary import Vocabulary

if TYPE_CHECKING:
    from engine.stream.finalize import FinalPolicy

ROOM_S = 5.0  # a round's window stays this far below the encoder's 30 s: on a full window the decoder
# tends to stop after a few words, which word timing then spreads over the whole window (issue 17)
CUT_MARGIN_S = 0.15  # a stopped stream confirms only words that end this far before its audio's end
TAIL_S = 1.5  # at the end of the stream, audio after the last word that is decoded once more
SETTLE_S = 0.3  # with a voice-activity detector: a round that heard this much silence after the speech heard it all
PRE_ROLL_S = 1.0  # audio kept before the next speech: Silero notices speech up to ~0.6 s after it starts (0.3 s
# cut the first word of a clip whose speech starts at once, e.g. fleurs-en-004's "Many": docs/bench/pre-roll)
KEEP_CONFIRMED_S = 1.0  # trimming at words keeps about this much confirmed speech at the buffer's start
UNHEARD_S = 1.0  # with a voice-activity detector: a round that stops with this much speech after its last word
# stopped early (a hush-word round can end after one word, before speech it never said: docs/bench/early-stop)
LONGEST_WORD_S = 1.0  # a last word timed longer than this covers speech the round skipped (it heard only this much)
LONGEST_LETTER_S = 0.5  # a one-letter word ("a", "I") timed longer than this is stretched over speech the round did
# not say, all of it (no confirmed one-letter word of eight long-form replays lasted over 0.3 s): rounds stuck on
# "took a", the "a" stretched to their audio's end, lost "impressions from wood" once it was confirmed
KEPT_WORDS = 500  # confirmed words the processor keeps (the prompt's 200 characters and a 30 s buffer hold fewer)
PROMPT_CHARS = 200  # a round's prompt: the confirmed text before its audio, as Whisper-Streaming's
TRIM_AT = ("segment", "word")  # where a long buffer is cut: the end of a completed segment, or of a confirmed word

log = logging.getLogger(__name__)


def prompt_before(confirmed: Sequence[Word], start: float, chars: int = PROMPT_CHARS) -> str:
    """The last whole confirmed words that end by start (stream seconds), at most chars characters: a round's
    prompt when its audio begins at start."""
    k = len(confirmed)
    while k > 0 and confirmed[k - 1].end > start:
        k -= 1
    words, length = [], 0
    for w in reversed(confirmed[:k]):
        if length + len(w.text) + 1 > chars:
            break
        words.append(w.text)
        length += len(w.text) + 1
    return " ".join(reversed(words))


def stretched_letter(word: Word) -> bool:
    """A one-letter word timed over LONGEST_LETTER_S."""
    return len(spelling(word.text)) == 1 and word.end - word.start > LONGEST_LETTER_S


class RoundTranscriber(Protocol):
    """What the loop needs from a transcriber (engine.stream.round.Transcriber): one round per call."""

    decode_options: DecodeOptions
    vocabulary: Vocabulary | None  # the words to know (None: no list)
    between_steps: Callable[[], None] | None  # called between a round's decoding steps (None: nothing)

    @property
    def max_buffer_s(self) -> float:
        """The longest buffer one round takes."""

    def transcribe(
        self, audio: np.ndarray, prompt: str = "", reference: list[int] | None = None, speech_until: float = 0.0
    ) -> RoundResult:
        """Words of the buffer, times relative to its start; reference: the previous round's tokens;
        speech_until: the round may not end before this time of its audio."""

    def text_tokens(self, text: str) -> list[int]:
        """The tokens of a text (a decoding's reference)."""

    def unguarded(self) -> AbstractContextManager[None]:
        """Rounds inside this block decode without the guard (DecodeOptions.guard_frames)."""

    def at_stream_end(self) -> AbstractContextManager[None]:
        """Rounds inside this block are the stream's last: unguarded and padded to 30 s."""

    @property
    def holds_back(self) -> bool:
        """Whether a round may leave out the last word of its audio (the guard, or a hush word)."""

    def final_pass(self) -> RoundTranscriber:
        """The transcriber that decodes a whole utterance again once it ended (engine.stream.finalize)."""


@dataclass
class LoopStats:
    """Running totals over the rounds of one stream."""

    rounds: int = 0
    encode_s: float = 0.0
    decode_s: float = 0.0
    align_s: float = 0.0
    encoder_gflops: float = 0.0
    beam_steps: int = 0
    beam_sum: int = 0
    reduced_steps: int = 0
    forced: int = 0  # words confirmed without two rounds agreeing
    padded_retries: int = 0  # unpadded rounds that ran away and were redone padded
    early_retries: int = 0  # unpadded rounds that stopped before speech they did not say, decoded again
    guard_stops: int = 0  # rounds the guard ended at the end of their audio or at a loop (loop stop)
    budget_stops: int = 0  # rounds whose final decoding stopped at its token budget
    skipped: int = 0  # rounds not run: nothing but silence since the last one (voice-activity detector)
    late: int = 0  # words confirmed by the max-delay rule
    dropped_s: float = 0.0  # audio cut from the buffer without confirmed words (reported as dropped events)

    def add(self, r: RoundResult, full_beam: int) -> None:
        self.rounds += 1
        self.encode_s += r.encode_s
        self.decode_s += r.decode_s
        self.align_s += r.align_s
        self.encoder_gflops += r.encoder_gflops
        self.beam_steps += len(r.beam_widths)
        self.beam_sum += sum(r.beam_widths)
        self.reduced_steps += sum(1 for b in r.beam_widths if b < full_beam)
        self.padded_retries += r.padded_retry
        self.early_retries += r.early_retry
        self.guard_stops += r.guarded
        self.budget_stops += r.at_budget

    @property
    def avg_beam(self) -> float:
        return self.beam_sum / self.beam_steps if self.beam_steps else 0.0


class OnlineProcessor:
    """Turns a live 16 kHz audio stream into confirmed, timestamped words."""

    def __init__(
        self,
        transcriber: RoundTranscriber,
        *,
        buffer_trimming_s: float = 15.0,
        prompt_chars: int = PROMPT_CHARS,
        min_chunk_s: float = 1.0,
        emission: Emission = Emission(),
        trim_at: str = "segment",
        max_delay_s: float = 0.0,
        vad: SpeechDetector | None = None,
        final_policy: FinalPolicy | None = None,
    ):
        """emission: when words are confirmed; trim_at: one of TRIM_AT; max_delay_s: a word still tentative
        this long after it was first shown is confirmed (0: never); vad: skip silence and confirm at pauses;
        final_policy: decode the utterances it says again once they end (engine.stream.finalize, run by the stream
        loop; None: no final pass)."""
        self.transcriber = transcriber
        self.buffer_trimming_s = buffer_trimming_s
        self.prompt_chars = prompt_chars
        self.min_chunk_s = min_chunk_s  # new audio a round waits for (engine.stream.runner)
        self.emission = emission
        self.trim_at = trim_at
        self.max_delay_s = max_delay_s
        self.vad = vad
        self.final_policy = final_policy
        self.heard_until = 0.0  # the end of the latest round's audio (stream seconds)
        self.held_back = False  # the guard ended the latest round: words at the end of its audio may be unsaid
        self.peeked: Word | None = None  # the word the guard stopped the latest round before, shown dimmed
        self.stats = LoopStats()
        self.audio_buffer = np.zeros(0, np.float32)
        self.buffer_offset = 0.0
        self.hypothesis = HypothesisBuffer()
        self.committed: list[Word] = []  # the latest confirmed words (_commit)
        self.last_tokens: list[int] | None = None
        self.round_start = 0.0  # where the buffer of the latest round began (stream seconds)
        self.dropped: list[DroppedEvent] = []  # audio cut without confirmed words, not yet reported

    def _commit(self, words: list[Word]) -> None:
        """Add confirmed words; at twice KEPT_WORDS, drop all but the latest KEPT_WORDS (a long session's rounds
        then cost no more, and the list is cut once per KEPT_WORDS words)."""
        self.committed.extend(words)
        if len(self.committed) > 2 * KEPT_WORDS:
            del self.committed[:-KEPT_WORDS]

    @property
    def buffer_s(self) -> float:
        return len(self.audio_buffer) / SAMPLE_RATE

    @property
    def window_s(self) -> float:
        """The most audio one round decodes; the buffer is cut before it holds more."""
        return self.transcriber.max_buffer_s - ROOM_S

    def window(self) -> np.ndarray:
        """The audio of the round: the buffer, up to window_s (more waits for the next rounds)."""
        return self.audio_buffer[: int(self.window_s * SAMPLE_RATE)]

    def insert_audio_chunk(self, audio: np.ndarray) -> None:
        self.audio_buffer = np.concatenate([self.audio_buffer, audio.astype(np.float32)])
        if self.vad is not None:
            self.vad.accept(audio)

    def prompt(self, start: float | None = None) -> str:
        """Up to prompt_chars of confirmed text that ends before the round's audio begins: at start (stream
        seconds), by default the buffer's start. A pipelined round passes the start of the audio it encoded, which
        the buffer may have been trimmed past since: the words in between are in its audio, not its prompt."""
        return prompt_before(self.committed, self.buffer_offset if start is None else start, self.prompt_chars)

    def process_iter(self) -> list[Word]:
        """Run one round on the current buffer; return the newly confirmed words."""
        if not len(self.audio_buffer):
            return []
        if self._silent():
            if not self.held_back:
                return self._pause()
            with self.transcriber.unguarded():  # the speaker paused: what the guard held back is whole now
                words = self._round()
            self.held_back = False  # unguarded, it held nothing back (a loop stop is no hold-back): the next pauses
            return words
        return self._round()

    def _round(self) -> list[Word]:
        """One round on the buffer; returns the words it confirmed."""
        forced = self._begin_round()
        audio, prompt = self.window(), self.prompt()
        result = self.transcriber.transcribe(audio, prompt, self.last_tokens)
        result = self.redone_if_stopped_early(result, audio, prompt, self.buffer_offset)
        return forced + self._apply(result, self.buffer_offset)

    def redone_if_stopped_early(
        self, result: RoundResult, audio: np.ndarray, prompt: str, offset: float
    ) -> RoundResult:
        """The round, or, when it stopped early (`_stopped_early`), the round decoded again with its end held back
        until it reaches the speech the voice-activity detector heard (`_speech_until`); the cost of both
        decodings is counted (docs/bench/early-stop)."""
        if self.vad is None or result.padded or not self._stopped_early(result, offset):
            return result
        until = self._speech_until(audio, offset)
        log.debug(
            "early retry: the round at %.2f s ended on %s, before speech the VAD heard; "
            "decoded again to end after %.2f s",
            offset,
            WordList(result.words[-1:], offset),
            offset + until,
        )
        again = self.transcriber.transcribe(audio, prompt, self.last_tokens, until)
        return replace(
            again,
            early_retry=True,
            encode_s=result.encode_s + again.encode_s,
            decode_s=result.decode_s + again.decode_s,
            align_s=result.align_s + again.align_s,
            encoder_gflops=result.encoder_gflops + again.encoder_gflops,
        )

    def _stopped_early(self, result: RoundResult, offset: float) -> bool:
        """Whether a round the guard did not end stopped before speech it did not say: the detector heard
        UNHEARD_S of speech after its last word (or under a last word stretched past LONGEST_WORD_S, or under all of a
        stretched one-letter word)."""
        if result.guarded or not result.words:
            return False
        last = result.words[-1]
        heard = offset + (last.start if stretched_letter(last) else min(last.end, last.start + LONGEST_WORD_S))
        return self.vad.speech_between(heard, offset + result.audio_s) >= UNHEARD_S

    def _speech_until(self, audio: np.ndarray, offset: float) -> float:
        """How far into audio (from offset, stream seconds) a redone round must decode before it may end: up to
        the speech the detector heard in it, less its last UNHEARD_S, as a round that ends there has said all
        but the speech the next round will hear better (0: less speech than that)."""
        until = self.vad.last_speech_from(offset + len(audio) / SAMPLE_RATE, UNHEARD_S)
        return max(0.0, until - offset) if until is not None else 0.0

    def _silent(self) -> bool:
        """With a voice-activity detector: the latest round already heard the end of the speech and some
        silence after it, and nothing has been said since, so a round now would hear nothing new."""
        return self.vad is not None and not self.vad.speech_since(self.heard_until - SETTLE_S)

    def _pause(self) -> list[Word]:
        """A round skipped over silence: the speaker has paused, so apply rounds in flight and confirm every
        tentative word at once; keep only PRE_ROLL_S before the next speech, none of it already transcribed."""
        words = self._drain()
        self.peeked = None  # nothing follows the words the pause confirms
        tail = self.hypothesis.confirm_all()
        if tail:
            log.debug("pause at %.2f s: confirmed %s", self.heard_until, WordList(tail))
        self._commit(tail)
        self.stats.skipped += 1
        cut = max(self.buffer_offset + self.buffer_s - PRE_ROLL_S, self.hypothesis.last_committed_time)
        if cut > self.buffer_offset:
            self._chunk_at(cut)
        return words + tail

    def _begin_round(self) -> list[Word]:
        """Make room in the buffer and note where this round's audio starts; returns forced words."""
        forced = self._make_room()
        self.round_start = self.buffer_offset
        return forced

    def _apply(self, result: RoundResult, offset: float) -> list[Word]:
        """Feed a round over the buffer that started at offset into LocalAgreement; trim; return confirmed."""
        self.last_tokens = result.tokens
        self.stats.add(result, self.transcriber.decode_options.beam_size)
        words = [w.stripped() for w in result.words if w.text.strip()]
        said = without_squeezed(words)
        if said and not self.committed:  # the stream's first word begins its transcript (tiny.en, given under a
            # second of speech, often writes it in lower case: "printing in the only sense")
            said[0] = replace(said[0], text=sentence_start(said[0].text))
        if log.isEnabledFor(logging.DEBUG):
            log.debug(
                "round %.2f-%.2f s%s: %s", offset, offset + result.audio_s, _flags(result), WordList(said, offset)
            )
        self.hypothesis.insert(said, offset)
        self.heard_until = offset + result.audio_s
        self.held_back = result.guarded
        self.peeked = result.peek.shifted(offset) if result.peek else None
        stretched = bool(words) and stretched_letter(words[-1])  # it may stand for any speech: it waits, as a cut word
        confirmed = self.emission.confirm(self.hypothesis, self.heard_until, result.guarded or stretched)
        if self.max_delay_s:
            due = self.heard_until - self.max_delay_s  # tentative since a round that ended by then
            late = self.hypothesis.confirm_until(due, self.buffer_offset, shown_by=due)
            if late:
                log.debug("max delay: confirmed %s (tentative since a round that ended by %.2f s)", WordList(late), due)
            self.stats.late += len(late)
            confirmed += late
        self._commit(confirmed)
        if self.buffer_s > self.buffer_trimming_s:
            if self.trim_at == "word":
                self._trim_at_confirmed_word()
            else:
                self._trim_at_completed_segment(result, offset)
        return confirmed

    def tentative(self) -> list[Word]:
        """What the stream shows dimmed: the latest round's unconfirmed words, and the word its guard stopped before."""
        return self.hypothesis.tentative() + ([self.peeked] if self.peeked else [])

    def close(self) -> None:
        """Release what the processor holds (threads, for the pipelined one)."""

    def finish(self, cut: bool = False) -> list[Word]:
        """At the end of the stream: decode what no round has seen yet and confirm the unconfirmed tail;
        while the confirmed words stop over TAIL_S before the end, decode the audio after them again (also when
        the last round said nothing new: a round over confirmed speech, a pause and more speech can end after
        the confirmed words, and the speech after the pause was lost).
        These last rounds run without the guard and padded to 30 s: the audio really ends there, so its last
        word is whole (Transcriber.at_stream_end).
        cut: the person stopped the stream (or its device was lost) mid-speech, so its last word may be cut off, and
        a round that takes the audio as whole finishes the phrase with a guess ("and I am recording." for "and I
        am going to"): see _finish_cut."""
        if cut:
            return self._finish_cut()
        words = self._drain()
        while self.buffer_s > self.window_s:
            words += self.process_iter()
        words += self._drain()
        again = self.transcriber.holds_back and self.buffer_s > 0
        with self.transcriber.at_stream_end():
            if again:
                words += self.process_iter() + self._drain()  # the last round may have held back the last word
            while True:
                tail = self.hypothesis.confirm_all()
                if tail:
                    log.debug("stream end: confirmed %s", WordList(tail))
                self._commit(tail)
                words += tail
                last = self.hypothesis.last_committed_time
                if self.buffer_offset + self.buffer_s - last < TAIL_S or last <= self.buffer_offset:
                    break
                log.debug(
                    "stream end: decoding the %.2f s after the last confirmed word again",
                    self.buffer_offset + self.buffer_s - last,
                )
                self._chunk_at(last)
                words += self.process_iter() + self._drain()
        self.buffer_offset += self.buffer_s
        self.audio_buffer = np.zeros(0, np.float32)
        return words

    def _finish_cut(self) -> list[Word]:
        """The end of a stopped stream: one more round as any other (guarded, with the hush word, so it stops before
        a word cut at the end), then only its words that end CUT_MARGIN_S before the audio's end are confirmed."""
        words = self._drain()
        if len(self.audio_buffer):
            words += self.process_iter() + self._drain()
        end = self.buffer_offset + self.buffer_s
        tail = self.hypothesis.confirm_until(end - CUT_MARGIN_S, self.buffer_offset)
        self._commit(tail)
        left = self.hypothesis.tentative()
        if left:
            log.debug(
                "stopped: confirmed %s, dropped %s (the audio stops in or after them)", WordList(tail), WordList(left)
            )
        self.hypothesis, self.peeked = HypothesisBuffer(), None  # the rest is dropped: nothing follows
        self.buffer_offset = end
        self.audio_buffer = np.zeros(0, np.float32)
        return words + tail

    def _drain(self) -> list[Word]:
        """Apply rounds still in flight (none in the serial loop)."""
        return []

    def _trim_at_confirmed_word(self) -> None:
        """Cut the buffer at the end of a confirmed word, keeping the last KEEP_CONFIRMED_S of confirmed speech:
        a round over audio that starts right at new speech tends to repeat its prompt, while confirmed words
        that it hears again are dropped by the agreement's time and n-gram checks."""
        last = self.committed[-1].end if self.committed else 0.0
        cut = next((w.end for w in reversed(self.committed) if w.end <= last - KEEP_CONFIRMED_S), 0.0)
        if cut > self.buffer_offset:
            self._chunk_at(cut)

    def _trim_at_completed_segment(self, result: RoundResult, offset: float) -> None:
        """Cut the buffer at the end of the last segment that ends before the last confirmed word."""
        if not self.committed or len(result.segments) < 2:
            return
        ends = [s.end for s in result.segments]
        last = self.committed[-1].end
        cut = ends[-2] + offset
        while len(ends) > 2 and cut > last:
            ends.pop()
            cut = ends[-2] + offset
        if self.buffer_offset < cut <= last:
            self._chunk_at(cut)

    def _make_room(self) -> list[Word]:
        """Keep the buffer within a round's window. When rounds have not agreed for that long, confirm the
        plausible unconfirmed words of the oldest audio and cut after the last confirmed word, so the rest
        is decoded again. With no word to cut at, the next rounds decode the same window until they agree;
        only a window in which the last round heard no words at all is dropped (reported in self.dropped)."""
        if self.buffer_s <= self.window_s:
            return []
        target = self.buffer_offset + self.buffer_s - self.buffer_trimming_s
        forced = self.hypothesis.confirm_until(target, self.buffer_offset)
        if forced:
            log.debug("full window: confirmed without agreement %s", WordList(forced))
        self._commit(forced)
        self.stats.forced += len(forced)
        cut = self.committed[-1].end if self.committed else 0.0
        if cut > self.buffer_offset:
            self._chunk_at(cut)
        elif self.stats.rounds and self.round_start == self.buffer_offset and not self.hypothesis.tentative():
            cut = min(target, self.buffer_offset + self.window_s)  # the last round heard no words there
            log.info("dropped the audio %.2f-%.2f s: no words in a full window", self.buffer_offset, cut)
            self.dropped.append(DroppedEvent(self.buffer_offset, cut, "no words in a full window"))
            self.stats.dropped_s += cut - self.buffer_offset
            self._chunk_at(cut)
        return forced

    def _chunk_at(self, time: float) -> None:
        log.debug("buffer cut at %.2f s (it started at %.2f s)", time, self.buffer_offset)
        self.hypothesis.pop_committed(time)
        cut = int(round((time - self.buffer_offset) * SAMPLE_RATE))
        self.audio_buffer = self.audio_buffer[cut:]
        self.buffer_offset = time


def _flags(result: RoundResult) -> str:
    """What happened to a round besides decoding, for its log line."""
    flags = [
        name
        for name, happened in (
            ("guarded", result.guarded),
            ("padded retry", result.padded_retry),
            ("early retry", result.early_retry),
            ("at its token budget", result.at_budget),
        )
        if happened
    ]
    if result.peek:
        flags.append(f"then {result.peek.text!r} p={result.peek.probability:.2f}")
    return f" ({', '.join(flags)})" if flags else ""
