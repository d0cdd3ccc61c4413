"""A hush-word round that stops before speech the voice-activity detector heard is decoded again, held back from
ending before that speech (docs/bench/early-stop), on the recorded long-form file with the real tiny.en model and
Silero VAD."""

import numpy as np
from testdata import DATA

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.stream.config import StreamConfig, build_processor

# The confirmed text before the buffer's start in the recorded run; it predicts "types", and the round stops there
PROMPT = (
    "the 15th century, may justly be considered. as the invention of the art of printing. and it is worth "
    "mention in passing. that as an example of fine typography. the earliest book printed with movable"
)
CUT_S = 44.38  # the buffer starts at the confirmed "types," ("… movable types, the Gutenberg, or 42-line Bible …")


def long_form(start_s: float, end_s: float) -> np.ndarray:
    audio = load_audio(DATA / "stall17_longform_first_87s.wav")
    return audio[int(start_s * SAMPLE_RATE) : int(end_s * SAMPLE_RATE)]


def said(result) -> list[str]:
    return [w.text.strip(" ,.").lower() for w in result.words]


def heard_out(tiny_model, audio: np.ndarray, hush_min_s: float = 0.0):
    """The round over audio as `flow` runs it, and what the loop makes of it. The recorded run had the hush word
    alone (hush_min_s=0); flow's silence up to 8 s before it (docs/bench/hush-min) reads this buffer whole."""
    processor, _ = build_processor(tiny_model, StreamConfig(policy="flow", hush_min_s=hush_min_s))
    processor.insert_audio_chunk(audio)  # the voice-activity detector hears it on the stream clock
    first = processor.transcriber.transcribe(audio, PROMPT)
    return first, processor.redone_if_stopped_early(first, audio, PROMPT, 0.0)


def test_a_round_that_stops_before_speech_it_heard_is_decoded_on_to_it(tiny_model):
    audio = long_form(CUT_S, 46.52)  # "types, the Gutenberg, or" (2.1 s)
    first, result = heard_out(tiny_model, audio)
    assert said(first) == ["types"] and first.words[-1].end < 0.6 and not first.guarded  # 1.5 s unsaid
    assert result.early_retry and not result.padded  # the same hush-word round, decoded again, no 30 s encoder pass
    assert said(result)[:2] == ["types", "the"] and said(result)[2].startswith("gut"), said(result)
    assert result.words[-1].end > 1.5  # it reaches the speech the detector heard (all but its last second)
    assert result.encode_s > first.encode_s and result.encoder_gflops > first.encoder_gflops  # both decodings' cost


def test_with_silence_before_the_hush_word_the_same_round_reads_on(tiny_model):
    first, result = heard_out(tiny_model, long_form(CUT_S, 46.52), hush_min_s=8.0)
    assert said(first)[:3] == ["types", "the", "gutenberg"] and result is first and not result.early_retry


def test_a_round_that_stops_before_silence_is_kept(tiny_model):
    audio = np.concatenate([long_form(CUT_S, 44.9), np.zeros(int(1.5 * SAMPLE_RATE), np.float32)])  # "types", quiet
    first, result = heard_out(tiny_model, audio)
    assert said(first) == ["types"]
    assert result is first and not result.early_retry
