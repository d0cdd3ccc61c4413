"""Utterance finalization (engine/stream/finalize.py): a scripted stream whose confirmed words are wrong is corrected
in its JSONL, its journal and an export; speech without a pause is finalized in pieces without losing a word; a
confirmed listed word the final pass misspells stays; an utterance the rounds were sure of is not decoded again,
unless its words leave out speech the detector heard; in realtime a final text goes out as soon as it is decoded,
while the stream waits for audio or between a round's decoding steps."""

import time
from concurrent.futures import Future
from dataclasses import replace

import numpy as np
import pytest
import soundfile as sf
from fake_transcriber import FakeTranscriber
from testdata import DATA

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.audio.sources import FileSource, PacedFileSource
from engine.audio.vad import SpeechDetector
from engine.session.events import final_record, word_record
from engine.session.exporters import to_txt
from engine.session.journal import SessionJournal, load_session
from engine.session.words import Word
from engine.stream.finalize import MAX_UTTERANCE_S, WINDOW_S, Finalizer, FinalPolicy
from engine.stream.policies import POLICIES
from engine.stream.processor import OnlineProcessor
from engine.stream.round import RoundResult, Segment
from engine.stream.runner import run_stream
from engine.stream.vocabulary import build_vocabulary

TIME_SCALE = 1000.0  # the test audio's samples hold their own stream time / TIME_SCALE
SURE = POLICIES["flow"]["final_sure"]  # `flow` leaves an utterance whose every confirmed word is this sure as it is
UNCOVERED = POLICIES["flow"]["final_uncovered_s"]  # … while its words cover all but this much of the speech in it


def ramp(start: float, seconds: float) -> np.ndarray:
    """Audio whose every sample holds its stream time (divided by TIME_SCALE)."""
    n = int(round(seconds * SAMPLE_RATE))
    return ((start + np.arange(n) / SAMPLE_RATE) / TIME_SCALE).astype(np.float32)


def result(words: list[Word]) -> RoundResult:
    return RoundResult([Segment(0.0, 30.0, "", [], words)], [], 0.0, 0.0, 0.0, 0.0, 0, 0.0, [])


class Reader(FakeTranscriber):
    """A final pass that says the script's words lying in the audio it is given, timed from the audio's start
    (which it reads off the ramp); it notes each window it decoded."""

    def __init__(self, script: list[Word]):
        self.script = script
        self.windows: list[tuple[float, float]] = []
        self.references: list[list[int] | None] = []

    def transcribe(self, audio, prompt="", reference=None, speech_until=0.0):
        start = float(audio[0]) * TIME_SCALE
        end = start + len(audio) / SAMPLE_RATE
        self.windows.append((start, end))
        self.references.append(reference)
        said = [w for w in self.script if start <= (w.start + w.end) / 2 < end]
        return result([Word(w.text, w.start - start, w.end - start, w.probability) for w in said])


def run_now(job) -> Future:
    future = Future()
    future.set_result(job())
    return future


def test_speech_without_a_pause_is_finalized_in_pieces_and_no_word_is_lost_or_repeated():
    # 80 s of words, 0.4 s long, 0.1 s apart, a wider gap every 3 s; each confirmed a second after it ends
    script = [Word(f"w{k}", k * 0.5, k * 0.5 + 0.4 - (0.15 if k % 6 == 5 else 0.0)) for k in range(160)]
    reader = Reader(script)
    finalizer = Finalizer(reader, run_now, clock=lambda: 0.0)
    finals, confirmed = [], 0
    for second in range(80):
        finalizer.add_audio(ramp(second, 1.0))
        due = [w for w in script[confirmed:] if w.end <= second + 1 - 1.0]
        finalizer.add_confirmed([w.confirmed(second + 1.0) for w in due])
        confirmed += len(due)
        finalizer.check_length()
        finals += finalizer.ready()
    finalizer.add_confirmed([w.confirmed(80.0) for w in script[confirmed:]])
    finals += finalizer.finish()
    assert len(finals) >= 80 / MAX_UTTERANCE_S
    assert [f.first for f in finals] == [sum(f.count for f in finals[:k]) for k in range(len(finals))]
    assert [w.text for f in finals for w in f.words] == [w.text for w in script]
    assert all(end - start <= WINDOW_S + 1e-3 for start, end in reader.windows)  # one 30 s window each
    assert all(b[1] - a[1] <= MAX_UTTERANCE_S + 2.0 for a, b in zip(reader.windows, reader.windows[1:]))


def test_a_final_decoding_that_repeats_itself_into_one_instant_at_the_end_keeps_only_what_was_said():
    said = [Word("he", 1.0, 1.2), Word("might", 1.2, 1.5), Word("even", 1.5, 1.8), Word("himself.", 1.8, 2.4)]
    repeat = [Word(w.text, 2.45, 2.45) for w in said]  # a call's last final pass said its sentence twice
    reader = Reader(said + repeat)
    finalizer = Finalizer(reader, run_now, clock=lambda: 0.0)
    finalizer.add_audio(ramp(0.0, 2.6))
    finalizer.add_confirmed([w.confirmed(2.6) for w in said])
    (final,) = finalizer.finish()
    assert [w.text for w in final.words] == ["he", "might", "even", "himself."]


def two_utterances(sure: float = 1.0, probability: float = 1.0) -> tuple[Reader, list]:
    """Two utterances with a pause between them, finalized one after the other; the second's last word confirmed
    with probability."""
    first = [Word("one", 0.5, 0.9), Word("two", 1.0, 1.4)]
    second = [Word("three", 3.0, 3.4), Word("four", 3.5, 3.9, probability)]
    reader = Reader(first + second)
    finalizer = Finalizer(reader, run_now, clock=lambda: 0.0, policy=FinalPolicy(sure))
    finalizer.add_audio(ramp(0.0, 2.0))
    finalizer.add_confirmed([w.confirmed(2.0) for w in first])
    finalizer.pause()
    finalizer.add_audio(ramp(2.0, 2.5))
    finalizer.add_confirmed([w.confirmed(4.5) for w in second])
    finalizer.pause()
    return reader, finalizer.finish()


def test_the_final_text_heard_before_an_utterance_and_its_confirmed_words_are_the_final_pass_reference():
    reader, finals = two_utterances()
    assert reader.windows == [(0.0, 2.0), (0.0, 4.5)]  # the second hears the first as context
    assert reader.references == [reader.text_tokens("one two"), reader.text_tokens("one two three four")]
    assert [w.text for f in finals for w in f.words] == ["one", "two", "three", "four"]


@pytest.mark.parametrize("probability", [SURE, SURE - 0.01])
def test_an_utterance_the_rounds_were_sure_of_is_final_as_confirmed_and_one_with_a_guess_is_decoded_again(probability):
    reader, finals = two_utterances(SURE, probability)
    guessed = probability < SURE
    assert reader.windows == ([(0.0, 4.5)] if guessed else [])  # "one two", every word sure, is never decoded
    assert reader.references == ([reader.text_tokens("one two three four")] if guessed else [])
    assert [(f.first, f.count) for f in finals] == [(0, 2), (2, 2)]  # every utterance gets its final record
    assert [w.text for f in finals for w in f.words] == ["one", "two", "three", "four"]


def heard_sentence(clip: str) -> tuple[SpeechDetector, list[Word]]:
    """The real detector fed a clip between silences, and a word every 0.5 s (0.4 s long) across the speech it
    heard."""
    silence = np.zeros(SAMPLE_RATE // 2, np.float32)
    detector = SpeechDetector()
    detector.accept(np.concatenate([silence, load_audio(DATA / clip), silence, silence]))
    runs = detector.runs_between(0.0, np.inf)
    start, end = runs[0][0], runs[-1][1]
    return detector, [Word(f"w{k}", t, t + 0.4) for k, t in enumerate(np.arange(start, end - 0.4, 0.5))]


def finish_one(finalizer: Finalizer, detector: SpeechDetector, confirmed: list[Word]):
    """Feed the finalizer the ramp over the detector's audio (its Reader reads the times off it) and the confirmed
    words, pause, and return the one final record."""
    total = detector.decided_until
    finalizer.add_audio(ramp(0.0, total))
    finalizer.add_confirmed([w.confirmed(total) for w in confirmed])
    finalizer.pause()
    (final,) = finalizer.finish()
    return final


@pytest.mark.parametrize("missed", [False, True])
def test_a_sure_utterance_whose_words_leave_out_speech_the_detector_heard_is_decoded_again(missed):
    # a sentence between silences, heard by the real detector; a word every 0.5 s across the speech it heard, all
    # sure; the rounds confirmed every one, or missed those of its last second (as "and garbage" in a telephone call)
    detector, script = heard_sentence("LJ001-0008.wav")
    end = detector.runs_between(0.0, np.inf)[-1][1]
    confirmed = [w for w in script if not missed or w.end < end - 1.0]
    reader = Reader(script)
    finalizer = Finalizer(reader, run_now, clock=lambda: 0.0, policy=FinalPolicy(SURE, UNCOVERED), detector=detector)
    final = finish_one(finalizer, detector, confirmed)
    assert reader.windows == ([(0.0, detector.decided_until)] if missed else [])
    assert [w.text for w in final.words] == [w.text for w in script]  # the missed words are back


@pytest.mark.parametrize("skipped", [False, True])
def test_a_final_decoding_that_skips_speech_the_confirmed_words_covered_is_not_used(skipped):
    # a 7.5 s sentence heard by the real detector, a confirmed word every 0.5 s across its speech; the final pass
    # says other words there, or skips its first 3 s (more than half its words are left: only the speech shows it)
    detector, confirmed = heard_sentence("LJ001-0009.wav")
    start = confirmed[0].start
    said = [Word(w.text.upper(), w.start, w.end) for w in confirmed if not skipped or w.start >= start + 3.0]
    finalizer = Finalizer(Reader(said), run_now, clock=lambda: 0.0, policy=FinalPolicy(), detector=detector)
    final = finish_one(finalizer, detector, confirmed)
    assert len(said) >= 0.5 * len(confirmed)
    assert [w.text for w in final.words] == [w.text for w in (confirmed if skipped else said)]


CONFIRMED = ["printed", "by", "Schoeffer", "at", "Maintz,"]  # the rounds, prompted with the names, had them right
FINAL = ["printed", "bye", "Schofer", "at", "Mains."]  # the final pass misspells them


@pytest.mark.parametrize(
    ("listed", "expected"),
    [
        ("Schoeffer, Maintz", ["printed", "bye", "Schoeffer", "at", "Maintz."]),
        ("Gutenberg, Subiaco", FINAL),  # an unrelated list changes nothing
        (None, FINAL),
    ],
)
def test_a_confirmed_listed_word_the_final_pass_misspells_stays_and_other_words_are_replaced(
    tiny_model, listed, expected
):
    said = [Word(text, 0.5 + k * 0.5, 0.9 + k * 0.5) for k, text in enumerate(FINAL)]
    reader = Reader(said)
    reader.vocabulary = build_vocabulary(listed, tiny_model.tokenizer(None))
    finalizer = Finalizer(reader, run_now, clock=lambda: 0.0)
    finalizer.add_audio(ramp(0.0, 3.5))
    finalizer.add_confirmed([Word(text, w.start, w.end).confirmed(3.5) for text, w in zip(CONFIRMED, said)])
    finalizer.pause()
    (final,) = finalizer.finish()
    assert [w.text for w in final.words] == expected
    assert [(w.start, w.end) for w in final.words] == [(w.start, w.end) for w in said]  # the final pass's timing


class Mishearing(FakeTranscriber):
    """Rounds that hear "Kick the boss shit", the last two words guesses (buffer-relative times: the buffer is never
    trimmed here); the final pass hears what was said."""

    heard = [Word("Kick", 0.5, 0.8), Word("the", 0.8, 0.9), Word("boss", 0.9, 1.3, 0.4), Word("shit.", 1.3, 1.8, 0.3)]
    said = [Word("Kick", 0.5, 0.8), Word("the", 0.8, 0.9), Word("ball", 0.9, 1.3), Word("straight.", 1.3, 1.8)]

    def transcribe(self, audio, prompt="", reference=None, speech_until=0.0):
        return result([w for w in self.heard if w.end <= len(audio) / SAMPLE_RATE])

    def final_pass(self):
        return Reader(self.said)


@pytest.mark.parametrize("final_sure", [1.0, SURE])  # every utterance decoded again; those with a guess (`flow`)
def test_a_wrong_confirmed_word_is_corrected_in_the_jsonl_the_journal_and_an_export(tmp_path, final_sure):
    clip = tmp_path / "call.wav"
    sf.write(clip, ramp(0.0, 3.0), SAMPLE_RATE, subtype="FLOAT")
    processor = OnlineProcessor(Mishearing(), min_chunk_s=0.5, final_policy=FinalPolicy(final_sure))
    records = []
    with SessionJournal.start(tmp_path, "call.wav", "scripted") as journal:

        def on_update(update):
            journal.append(update.confirmed, update.finals)
            records.extend(word_record(w) for w in update.confirmed)
            records.extend(final_record(f) for f in update.finals)

        done = run_stream(processor, FileSource(clip), pace="unaware", on_update=on_update)
    confirmed = " ".join(r["text"] for r in records if r["type"] == "word")
    finals = [r for r in records if r["type"] == "final"]
    assert confirmed == "Kick the boss shit."
    assert done.finalized == 1 and len(finals) == 1
    assert finals[0]["first"] == 0 and finals[0]["count"] == 4
    assert [w["text"] for w in finals[0]["words"]] == ["Kick", "the", "ball", "straight."]
    transcript = load_session(tmp_path, journal.session_id)
    assert transcript.text == "Kick the ball straight."
    assert "Kick the ball straight." in to_txt(transcript)


class SlowFinalPass(FakeTranscriber):
    """A final pass that takes 0.3 s (delay) and says nothing (so the confirmed words stand); notes when each one
    ends."""

    def __init__(self):
        self.ended: list[float] = []
        self.delay = 0.3

    def transcribe(self, audio, prompt="", reference=None, speech_until=0.0):
        time.sleep(self.delay)
        self.ended.append(time.perf_counter())
        return result([])


class MishearingSlowly(Mishearing):
    """Mishearing rounds that say how much audio they heard (so the detector's pause ends them), and a slow final
    pass."""

    def __init__(self):
        self.slow = SlowFinalPass()

    def transcribe(self, audio, prompt="", reference=None, speech_until=0.0):
        return replace(super().transcribe(audio), audio_s=len(audio) / SAMPLE_RATE)

    def final_pass(self):
        return self.slow


def test_a_final_text_decoded_while_the_stream_waits_for_audio_is_reported_at_once(tmp_path):
    # rounds take 1 s of audio each: a final text held for the next round would come up to 1 s after its decoding
    speech = load_audio(DATA / "LJ001-0008.wav")
    clip = tmp_path / "pause.wav"
    sf.write(clip, np.concatenate([speech, np.zeros(int(4.0 * SAMPLE_RATE), np.float32), speech]), SAMPLE_RATE)
    transcriber = MishearingSlowly()
    processor = OnlineProcessor(transcriber, min_chunk_s=1.0, final_policy=FinalPolicy(), vad=SpeechDetector())
    updates = []
    run_stream(
        processor, PacedFileSource(clip), pace="realtime", on_update=lambda u: updates.append((time.perf_counter(), u))
    )
    reported = [at for at, u in updates[:-1] if u.finals]
    assert reported, "the first utterance's final text waited for the end of the stream"
    assert reported[0] - transcriber.slow.ended[0] < 0.25  # out within a wait for audio, not a round later
    assert sum(len(u.finals) for _, u in updates) == 2  # the second utterance's comes with the end of the stream


class SteppingRounds(MishearingSlowly):
    """Mishearing rounds that take 1 s each in 50 ms decoding steps, calling between_steps after each as the real
    rounds do; a final pass slow enough (3 s) to end while the next speech's rounds run. Notes each round's span."""

    def __init__(self):
        super().__init__()
        self.slow.delay = 3.0
        self.rounds: list[tuple[float, float]] = []

    def transcribe(self, audio, prompt="", reference=None, speech_until=0.0):
        began = time.perf_counter()
        for _ in range(20):
            time.sleep(0.05)
            if self.between_steps:
                self.between_steps()
        self.rounds.append((began, time.perf_counter()))
        return super().transcribe(audio, prompt, reference, speech_until)


def test_a_final_text_decoded_while_a_round_runs_goes_out_between_its_steps(tmp_path):
    speech = load_audio(DATA / "LJ001-0008.wav")
    clip = tmp_path / "pause.wav"
    sf.write(clip, np.concatenate([speech, np.zeros(int(3.0 * SAMPLE_RATE), np.float32), speech, speech]), SAMPLE_RATE)
    transcriber = SteppingRounds()
    processor = OnlineProcessor(transcriber, min_chunk_s=0.5, final_policy=FinalPolicy(), vad=SpeechDetector())
    updates = []
    run_stream(
        processor, PacedFileSource(clip), pace="realtime", on_update=lambda u: updates.append((time.perf_counter(), u))
    )
    assert processor.transcriber.between_steps is None  # the stream's end took the hook away
    reported = [at for at, u in updates[:-1] if u.finals]
    assert reported, "the first utterance's final text waited for the end of the stream"
    ended = transcriber.slow.ended[0]
    assert reported[0] - ended < 0.15  # out at the next step, not when the round ends (up to 1 s later)
    assert any(began < reported[0] < end for began, end in transcriber.rounds)  # in the middle of a round


def test_a_real_round_calls_between_steps_after_each_decoding_step(tiny_model):
    from engine.stream.round import Transcriber

    transcriber = Transcriber(tiny_model)
    calls = []
    transcriber.between_steps = lambda: calls.append(time.perf_counter())
    said = transcriber.transcribe(load_audio(DATA / "LJ001-0008.wav"))
    assert len(calls) == len(said.beam_widths)  # after the prefill and after each step but the last
    assert transcriber.final_pass().between_steps is None  # the final pass, on its own thread, calls nothing
