"""Offline transcription across Whisper's 30 s window seam keeps every word (openai-whisper's seeking)."""

import jiwer
import numpy as np
from testdata import DATA
from whisper_normalizer.english import EnglishTextNormalizer

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.decoder.options import DecodeResult
from engine.stream import offline
from engine.stream.offline import decode_with_fallback, transcribe_audio
from engine.stream.round import Transcriber

TEXTS = {
    "LJ001-0009": (
        "Printing, then, for our purpose, may be considered as the art of making books by means of movable types."
    ),
    "LJ001-0008": "has never been surpassed.",
    "LJ001-0013": "than in the same operations with ugly ones.",
    "LJ001-0004": "produced the block books, which were the immediate predecessors of the true printed book,",
    "LJ001-0011": "it is of the first importance that the letter used should be fine in form;",
    "LJ001-0016": "The Middle Ages brought calligraphy to perfection, and it was natural therefore",
    "LJ001-0006": "And it is worth mention in passing that, as an example of fine typography,",
}
ORDER = list(TEXTS)  # 34 s; the last sentence runs from 28.6 s to 34.3 s, across the first window's end
normalize = EnglishTextNormalizer()


def seam_clip() -> tuple[np.ndarray, str, float]:
    gap = np.zeros(int(0.3 * SAMPLE_RATE), np.float32)
    parts, text = [], []
    for name in ORDER:
        parts += [load_audio(DATA / f"{name}.wav"), gap]
        text.append(TEXTS[name])
    last_start = sum(len(p) for p in parts[:-2]) / SAMPLE_RATE
    return np.concatenate(parts), " ".join(text), last_start


def test_words_at_the_window_seam_are_kept(tiny_model):
    audio, reference, last_start = seam_clip()
    assert last_start < 30 < len(audio) / SAMPLE_RATE - 1  # the last sentence straddles the first window's end
    words = transcribe_audio(Transcriber(tiny_model), audio)
    hypothesis = " ".join(w.text for w in words)
    measures = jiwer.process_words(normalize(reference), normalize(hypothesis))
    assert measures.deletions == 0, hypothesis
    assert measures.wer <= 0.08, hypothesis
    duration = len(audio) / SAMPLE_RATE
    assert all(0 <= w.start <= w.end <= duration for w in words)
    assert [w.start for w in words] == sorted(w.start for w in words)


def test_a_failed_window_is_decoded_again_at_a_higher_temperature(tiny_model, monkeypatch):
    transcriber = Transcriber(tiny_model)
    encoded = transcriber.encode(load_audio(DATA / "LJ001-0008.wav"))
    runaway = DecodeResult(transcriber.tokenizer.encode(" the the the the the the the the the the the the"), -1.0, 0.0)
    monkeypatch.setattr(transcriber, "decode", lambda *a, **k: runaway)
    temperatures = []
    sample = offline._sample
    monkeypatch.setattr(offline, "_sample", lambda t, e, p, temp: temperatures.append(temp) or sample(t, e, p, temp))
    result = decode_with_fallback(transcriber, encoded, [])
    assert temperatures and temperatures[0] == 0.2
    text = transcriber.tokenizer.decode([t for t in result.tokens if t < transcriber.tokenizer.eot])
    assert "surpassed" in text.lower(), text
