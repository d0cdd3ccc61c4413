"""Emission policies (--emit), the max-delay rule and the voice-activity detector, on hand-made rounds and on
real clips with the real tiny.en model."""

import logging
import re

import numpy as np
import pytest
import soundfile as sf
from fake_transcriber import FakeTranscriber
from testdata import DATA

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.audio.sources import FileSource
from engine.audio.vad import HISTORY_S, SpeechDetector
from engine.scoring.wer import corpus_wer
from engine.session.words import Word
from engine.stream.agreement import HypothesisBuffer
from engine.stream.config import StreamConfig, build_processor
from engine.stream.emission import EMIT_POLICIES, Emission, aligned_prefix, without_squeezed
from engine.stream.processor import OnlineProcessor
from engine.stream.round import RoundResult, Segment
from engine.stream.runner import run_stream

PRINTING = "Printing, then, for our purpose, may be considered as the art of making books by means of movable types."
SURPASSED = "has never been surpassed."


def words(*spec):
    return [Word(t, s, e, p) for t, s, e, p in spec]


def test_aligned_prefix_stops_at_a_word_near_the_audio_end_an_unsure_word_and_a_squeezed_word():
    ws = words(("the", 0.0, 0.2, 0.9), ("cat", 0.3, 0.5, 0.9), ("sat", 0.6, 0.9, 0.9))
    assert aligned_prefix(ws, limit=0.7) == 2  # "sat" ends after the limit
    assert aligned_prefix(ws, limit=5.0) == 3
    unsure = words(("the", 0.0, 0.2, 0.9), ("cat", 0.3, 0.5, 0.2), ("sat", 0.6, 0.9, 0.9))
    assert aligned_prefix(unsure, limit=5.0, min_probability=0.6) == 1
    squeezed = words(("the", 0.0, 0.2, 0.9), ("cat", 0.3, 0.3, 0.9), ("sat", 0.3, 0.3, 0.9))  # invented words
    assert aligned_prefix(squeezed, limit=5.0) == 1


def test_a_guarded_round_keeps_its_last_word_under_every_policy():
    for policy in EMIT_POLICIES:
        hypothesis = HypothesisBuffer()
        hypothesis.insert(words(("the", 0.0, 0.2, 0.9), ("cat", 0.3, 0.5, 0.9), ("sat", 0.6, 0.9, 0.9)), 0.0)
        hypothesis.flush()
        hypothesis.insert(words(("the", 0.0, 0.2, 0.9), ("cat", 0.3, 0.5, 0.9), ("sat", 0.6, 0.9, 0.9)), 0.0)
        confirmed = Emission(policy).confirm(hypothesis, round_end=5.0, guarded=True)
        assert [w.text for w in confirmed] == ["the", "cat"], policy  # "sat" may go on in the next round's audio


def test_a_run_of_words_squeezed_into_one_instant_is_dropped_and_a_single_short_word_kept():
    ws = words(
        ("the", 0.0, 0.2, 0.9),
        ("and", 0.2, 0.2, 0.9),
        ("it", 0.2, 0.2, 0.9),
        ("was", 0.2, 0.2, 0.9),
        ("on", 0.3, 0.4, 0.9),
        ("of", 0.45, 0.47, 0.9),
        ("types", 0.5, 0.9, 0.9),
    )
    assert [w.text for w in without_squeezed(ws)] == ["the", "on", "of", "types"]


def test_alignatt_confirms_in_one_round_and_hybrid_waits_for_agreement_on_unsure_words():
    round_words = words(("the", 0.0, 0.2, 0.9), ("cat", 0.3, 0.5, 0.3), ("sat", 0.6, 0.9, 0.9))
    for policy, expected in (("agreement", []), ("alignatt", ["the", "cat", "sat"]), ("hybrid", ["the"])):
        hb = HypothesisBuffer()
        hb.insert(round_words, 0.0)
        assert [w.text for w in Emission(policy, 0.3).confirm(hb, round_end=1.5, guarded=False)] == expected
    with pytest.raises(ValueError, match="alignatt"):
        Emission("soon")


def test_with_a_margin_two_rounds_agreeing_on_a_word_at_the_end_of_their_audio_do_not_confirm_it():
    hb = HypothesisBuffer()
    emission = Emission("agreement", margin_s=0.3)
    for _ in range(2):
        hb.insert(words(("the", 0.0, 0.2, 0.9), ("cat", 0.3, 0.5, 0.9), ("sat", 0.6, 0.9, 0.9)), 0.0)
        confirmed = emission.confirm(hb, round_end=1.0, guarded=False)
    assert [w.text for w in confirmed] == ["the", "cat"]  # "sat" ends 0.1 s before the audio does
    hb.insert(words(("sat", 0.6, 0.9, 0.9), ("on", 1.0, 1.1, 0.9)), 0.0)
    assert [w.text for w in emission.confirm(hb, round_end=1.4, guarded=False)] == ["sat"]


class DisagreeingTranscriber(FakeTranscriber):
    """Rounds that agree on "alpha" but never on the word after it: only the max-delay rule can confirm it."""

    def __init__(self):
        self.calls = 0

    def transcribe(self, audio, prompt, reference):
        self.calls += 1
        second = ("beta", "gamma", "delta")[self.calls % 3]
        ws = words(("alpha", 0.1, 0.5, 0.9), (second, 0.6, 0.9, 0.9))
        return RoundResult(
            [Segment(0.0, 0.9, "", [], ws)], [], 0.0, 0.0, 0.0, 0.0, 0, 0.0, [], audio_s=len(audio) / SAMPLE_RATE
        )


def stream_half_seconds(processor, n):
    confirmed = []
    for _ in range(n):
        processor.insert_audio_chunk(np.zeros(SAMPLE_RATE // 2, np.float32))
        confirmed += processor.process_iter()
    return confirmed


def test_with_a_gap_rounds_agree_only_with_rounds_that_heard_at_least_that_much_less_audio():
    hb = HypothesisBuffer()
    emission = Emission("agreement", margin_s=0.0, gap_s=0.6)
    said = words(("the", 0.0, 0.2, 0.9), ("cat", 0.3, 0.5, 0.9), ("sat", 0.6, 0.9, 0.9))
    confirmed = []
    for end in (1.0, 1.3, 1.6, 1.9):  # rounds 0.3 s apart, all agreeing
        hb.insert(said, 0.0)
        confirmed.append([w.text for w in emission.confirm(hb, round_end=end, guarded=False)])
    assert confirmed == [[], [], ["the", "cat", "sat"], []]  # 1.6 s is the first round 0.6 s after another


def test_a_word_its_round_is_unsure_of_needs_agreement_across_the_longer_gap():
    said = words(("the", 0.0, 0.2, 0.9), ("cat", 0.3, 0.5, 0.2), ("sat", 0.6, 0.9, 0.9))  # unsure of "cat"

    def confirmed(emission):
        hb, out = HypothesisBuffer(), []
        for end in (1.0, 1.3, 1.6, 1.9, 2.2, 2.5):  # rounds 0.3 s apart, all agreeing
            hb.insert(said, 0.0)
            out.append([w.text for w in emission.confirm(hb, round_end=end, guarded=False)])
        return out

    assert confirmed(Emission("agreement", gap_s=0.6)) == [[], [], ["the", "cat", "sat"], [], [], []]
    # "cat" waits for two rounds 1.2 s apart (1.0 and 2.2 s), and "sat" behind it
    assert confirmed(Emission("agreement", gap_s=0.6, unsure_gap_s=1.2)) == [[], [], ["the"], [], ["cat", "sat"], []]
    assert confirmed(Emission("hybrid", margin_s=0.3, gap_s=0.6, unsure_gap_s=1.2))[:3] == [["the"], [], []]


def test_the_max_delay_rule_confirms_a_word_that_never_gets_agreement():
    without = stream_half_seconds(OnlineProcessor(DisagreeingTranscriber()), 8)
    assert [w.text for w in without] == ["Alpha"]  # agreement alone never confirms the second word
    processor = OnlineProcessor(DisagreeingTranscriber(), max_delay_s=1.0)
    late = stream_half_seconds(processor, 8)
    assert [w.text for w in late][0] == "Alpha" and len(late) == 2
    assert late[1].text in ("beta", "gamma", "delta") and processor.stats.late == 1
    # it was confirmed in the first round whose audio reached 1 s past its end (0.9 s + 1.0 s ≤ 2.0 s)
    assert processor.heard_until == 4.0


class StuckTranscriber(FakeTranscriber):
    """Rounds stuck on "took a", the "a" stretched over the last 1.4 s of their audio; a round redone with
    speech_until says the speech instead."""

    def __init__(self):
        self.redone = 0

    def transcribe(self, audio, prompt, reference, speech_until=0.0):
        end = len(audio) / SAMPLE_RATE
        if speech_until:
            self.redone += 1
            ws = words(("took", 0.1, 0.4, 0.9), ("impressions", 0.4, 1.0, 0.9), ("from", 1.0, 1.2, 0.9))
        else:
            ws = words(("took", 0.1, 0.4, 0.9), ("a", max(0.4, end - 1.4), end - 0.03, 0.35))
        return RoundResult([Segment(0.0, end, "", [], ws)], [], 0.0, 0.0, 0.0, 0.0, 0, 0.0, [], audio_s=end)


def test_a_one_letter_word_stretched_to_the_end_of_the_audio_is_never_confirmed():
    processor = OnlineProcessor(StuckTranscriber(), emission=Emission("agreement"), max_delay_s=1.0)
    assert [w.text for w in stream_half_seconds(processor, 8)] == ["Took"]  # "a" may stand for any speech


def test_a_round_stuck_on_a_stretched_one_letter_word_is_redone_to_the_speech_the_detector_heard():
    speech = load_audio(DATA / "LJ001-0008.wav")[: 3 * SAMPLE_RATE]
    transcriber = StuckTranscriber()
    processor = OnlineProcessor(transcriber, emission=Emission("agreement"), vad=SpeechDetector())
    processor.insert_audio_chunk(speech)
    processor.process_iter()
    assert transcriber.redone == 1 and processor.stats.early_retries == 1
    assert [w.text for w in processor.tentative()] == ["Took", "impressions", "from"]


def test_the_detector_hears_speech_and_not_silence():
    detector = SpeechDetector()
    detector.accept(np.zeros(SAMPLE_RATE, np.float32))
    assert detector.voice_end is None and detector.decided_until == pytest.approx(1.0, abs=0.04)
    speech = load_audio(DATA / "LJ001-0008.wav")
    for start in range(0, len(speech), 700):  # any piece size
        detector.accept(speech[start : start + 700])
    assert detector.speech_since(1.5)
    end = 1.0 + len(speech) / SAMPLE_RATE
    assert end - 0.4 < detector.voice_end <= end + 0.1
    assert detector.speech_between(0.0, 1.0) == 0.0
    assert 0.6 * (end - 1.0) < detector.speech_between(1.0, end) <= end - 1.0
    assert detector.speech_between(1.0, 1.5) + detector.speech_between(1.5, end) == pytest.approx(
        detector.speech_between(0.0, end + 1.0)
    )
    # where the last second of speech before the end begins, and no such point for more speech than was heard
    last = detector.last_speech_from(end, 1.0)
    assert 1.0 < last < end - 1.0 and detector.speech_between(last, end) == pytest.approx(1.0)
    assert detector.last_speech_from(end, detector.speech_between(0.0, end) + 0.1) is None


def lone_yeah_after(silence_s: float) -> tuple[np.ndarray, float]:
    """A sentence, silence_s of a quiet noise floor, a lone "yeah" at the sentence's level, 2 s more; and where the
    "yeah" starts (seconds)."""
    speech, yeah = load_audio(DATA / "LJ001-0009.wav"), load_audio(DATA / "cold_corpus3_yeah.wav")
    yeah = yeah * np.sqrt(np.mean(speech**2) / np.mean(yeah**2))
    audio = np.concatenate([speech, np.zeros(int(silence_s * SAMPLE_RATE)), yeah, np.zeros(2 * SAMPLE_RATE)])
    audio += np.random.default_rng(0).standard_normal(len(audio)) * 0.002
    return audio.astype(np.float32), len(speech) / SAMPLE_RATE + silence_s


@pytest.mark.parametrize("silence_s", [1.0, 5.0, 8.0])
def test_a_lone_short_word_long_after_the_last_speech_is_heard(silence_s):
    # carried through seconds of silence, the detector's state drifted until a lone "yeah" scored 0.05
    audio, start = lone_yeah_after(silence_s)
    detector = SpeechDetector()
    detector.accept(audio)
    assert detector.speech_between(start - 0.1, start + 0.5) >= 0.1


def test_a_lone_yeah_eight_seconds_after_a_sentence_comes_out_of_the_stream(tiny_model, tmp_path):
    audio, _ = lone_yeah_after(8.0)
    clip = tmp_path / "lone_yeah.wav"
    sf.write(clip, audio, SAMPLE_RATE)
    processor, _ = build_processor(tiny_model, StreamConfig(policy="flow", pipeline=False))
    events = []
    run_stream(processor, FileSource(str(clip)), pace="unaware", on_update=lambda u: events.extend(u.confirmed))
    processor.close()
    said = [e.text.strip(".,!").lower() for e in events]
    assert said[:3] == ["printing", "then", "for"], said
    assert said[-1] in ("yeah", "yes"), said


def test_the_detector_forgets_speech_older_than_its_history_and_still_hears_new_speech():
    detector = SpeechDetector()
    speech = load_audio(DATA / "LJ001-0008.wav")
    detector.accept(speech)
    first_end = detector.voice_end
    detector.accept(np.zeros(int((HISTORY_S + 1) * SAMPLE_RATE), np.float32))
    start = detector.decided_until
    detector.accept(speech)
    end = detector.decided_until
    assert all(a > first_end for a, _ in detector.runs)  # the first sentence's runs are gone
    assert detector.speech_between(0.0, first_end) == 0.0
    assert 0.6 * (end - start) < detector.speech_between(start, end) <= end - start
    last = detector.last_speech_from(end, 1.0)
    assert start < last < end - 1.0 and detector.speech_between(last, end) == pytest.approx(1.0)


def test_the_detector_skips_a_silent_stretch_without_dropping_the_speech_after_it(tiny_model, tmp_path):
    first, second = load_audio(DATA / "LJ001-0009.wav"), load_audio(DATA / "LJ001-0008.wav")
    quiet = np.random.default_rng(15).normal(0, 0.002, 5 * SAMPLE_RATE).astype(np.float32)  # room noise
    path = tmp_path / "pause.wav"
    sf.write(path, np.concatenate([first, quiet, second]), SAMPLE_RATE)
    config = StreamConfig(policy="flow", pipeline=False, beam_size=1, vad=True, min_chunk_s=0.5)
    processor, notices = build_processor(tiny_model, config)
    assert notices == [] and processor.vad is not None
    events = []
    done = run_stream(
        processor, FileSource(str(path)), pace="unaware", on_update=lambda update: events.extend(update.confirmed)
    )
    processor.close()
    text = " ".join(e.text for e in events)
    assert corpus_wer([PRINTING + " " + SURPASSED], [text]) < 0.15, text  # tiny.en says "maybe consider"
    assert "surpassed" in text
    assert done.skipped_rounds >= 5  # most of the 5 s pause was not transcribed
    types = next(e for e in events if e.text.strip(".,").lower() == "types")
    pause_start = len(first) / SAMPLE_RATE
    assert types.emitted < pause_start + 1.5  # finalized at the pause, not when the next sentence came


def test_speech_that_starts_before_the_detector_notices_it_keeps_its_first_word(tiny_model):
    """fleurs-en-004 says "Many" at once; Silero calls it speech only 0.6 s in. The rounds before that are
    skipped as silence, and the buffer they leave must still hold the first word."""
    detector = SpeechDetector()
    clip = load_audio(DATA / "fleurs-en-004.ogg")
    detector.accept(clip[: SAMPLE_RATE // 2])
    assert detector.voice_end is None  # half a second of speech, not yet noticed
    processor, _ = build_processor(tiny_model, StreamConfig(policy="flow"))
    events = []
    done = run_stream(
        processor,
        FileSource(str(DATA / "fleurs-en-004.ogg")),
        pace="unaware",
        on_update=lambda update: events.extend(update.confirmed),
    )
    processor.close()
    assert done.skipped_rounds >= 1  # rounds did wait for the detector
    assert [e.text.strip(",.").lower() for e in events[:2]] == ["many", "people"], [e.text for e in events]


@pytest.mark.parametrize("emit", EMIT_POLICIES)
def test_each_emission_policy_streams_a_real_clip_to_the_right_words(tiny_model, emit):
    config = StreamConfig(
        policy="flow",
        pipeline=False,
        hush=True,
        guard_frames=8,
        emit=emit,
        min_chunk_s=0.5,
        buffer_trimming_s=4.0,
        trim_at="word",
    )
    processor, _ = build_processor(tiny_model, config)
    events = []
    run_stream(
        processor,
        FileSource(str(DATA / "LJ001-0009.wav")),
        pace="unaware",
        on_update=lambda update: events.extend(update.confirmed),
    )
    processor.close()
    text = " ".join(e.text for e in events)
    assert corpus_wer([PRINTING], [text]) <= 0.2, text  # tiny.en says "maybe consider (it)"
    said = [e.text.strip(".,").lower() for e in events]
    trigrams = list(zip(said, said[1:], said[2:]))
    assert len(trigrams) == len(set(trigrams))  # nothing said twice


def test_a_corrupt_voice_activity_model_is_named_and_the_stream_runs_every_round_instead(
    tiny_model, tmp_path, monkeypatch
):
    import engine.audio.vad as vad
    from engine.errors import ModelError

    corrupt = tmp_path / "silero_vad.onnx"
    corrupt.write_bytes(vad.model_path().read_bytes()[:5000])  # a partial download
    with pytest.raises(ModelError, match="cannot load the voice-activity model"):
        SpeechDetector(corrupt)
    monkeypatch.setattr(vad, "model_path", lambda: corrupt)
    processor, notices = build_processor(tiny_model, StreamConfig(policy="flow"))
    assert processor.vad is None and notices == [notices[0]] and "every round runs" in notices[0]


def messages(caplog, prefix: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG and r.getMessage().startswith(prefix)]


def test_the_emission_rules_log_the_words_they_drop_and_hold_back(caplog):
    caplog.set_level(logging.DEBUG, logger="engine.stream")
    squeezed = words(("the", 0.0, 0.2, 0.9), ("and", 0.2, 0.2, 0.9), ("it", 0.2, 0.2, 0.9), ("was", 0.2, 0.2, 0.9))
    without_squeezed(squeezed)
    assert messages(caplog, "squeezed") == [
        "squeezed: dropped 'and' 0.20-0.20, 'it' 0.20-0.20, 'was' 0.20-0.20 (3 words, each under 0.04 s)"
    ]
    hypothesis = HypothesisBuffer()
    for _ in range(2):
        hypothesis.insert(words(("the", 0.0, 0.2, 0.9), ("cat", 0.3, 0.5, 0.9)), 0.0)
        Emission("alignatt").confirm(hypothesis, round_end=5.0, guarded=True)
    assert (
        messages(caplog, "agreement: holds back")
        == ["agreement: holds back the round's last word 'cat' 0.30-0.50 (its audio was cut under it)"] * 2
    )
    unsure = HypothesisBuffer()
    for end in (1.0, 1.3, 1.6):
        unsure.insert(words(("the", 0.0, 0.2, 0.9), ("cat", 0.3, 0.5, 0.2)), 0.0)
        Emission("agreement", gap_s=0.6, unsure_gap_s=1.2).confirm(unsure, round_end=end, guarded=False)
    assert messages(caplog, "agreement: 'cat'") == [
        "agreement: 'cat' 0.30-0.50 is unsure: waits for a round 1.20 s older"
    ]


def test_the_max_delay_rule_logs_the_word_it_confirms(caplog):
    caplog.set_level(logging.DEBUG, logger="engine.stream.processor")
    late = stream_half_seconds(OnlineProcessor(DisagreeingTranscriber(), max_delay_s=1.0), 8)
    assert messages(caplog, "max delay") == [
        f"max delay: confirmed '{late[1].text}' 0.60-0.90 (tentative since a round that ended by 1.00 s)"
    ]


def test_an_early_retry_is_logged(caplog):
    caplog.set_level(logging.DEBUG, logger="engine.stream.processor")
    processor = OnlineProcessor(StuckTranscriber(), emission=Emission("agreement"), vad=SpeechDetector())
    processor.insert_audio_chunk(load_audio(DATA / "LJ001-0008.wav")[: 3 * SAMPLE_RATE])
    processor.process_iter()
    [line] = messages(caplog, "early retry")
    assert re.fullmatch(
        r"early retry: the round at 0\.00 s ended on 'a' 0\.40-1\.75, before speech the VAD heard; decoded again to "
        r"end after \d\.\d\d s",
        line,
    )
