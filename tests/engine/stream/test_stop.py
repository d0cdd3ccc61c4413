"""A stream stopped mid-word confirms no word the audio did not finish, in its captions or its final text (issue 53:
"…and I am recording." where the audio said "and I am going to")."""

import threading

import pytest
import soundfile as sf
from testdata import DATA

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.audio.sources import FileSource
from engine.session.final_text import FinalText
from engine.stream.config import StreamConfig, build_processor
from engine.stream.runner import run_stream
from tools.bench.textgrid import read_textgrid_words

CLIP = DATA / "acoustic_corpus_10s.wav"  # "this is the acoustic corpus i'm talking pretty fast here there's nothing…"
SAID = read_textgrid_words(DATA / "acoustic_corpus.TextGrid")


@pytest.mark.parametrize("cut", [1.7, 2.2, 4.05])  # in "acoustic", "corpus" and "nothing"
def test_stopping_in_a_word_confirms_only_the_words_before_it(tiny_model, tmp_path, cut):
    clip = tmp_path / "cut.wav"
    sf.write(clip, load_audio(CLIP)[: int(cut * SAMPLE_RATE)], SAMPLE_RATE)
    processor, _ = build_processor(tiny_model, StreamConfig(policy="flow"))
    stop, text, confirmed = threading.Event(), FinalText(), []

    def on_update(update):
        confirmed.extend(update.confirmed)
        text.confirm(update.confirmed)
        for final in update.finals:
            text.apply(final)
        if update.round and update.round.buffer_end >= cut - 0.01:
            stop.set()  # the person presses Stop with the last of the audio

    try:
        run_stream(processor, FileSource(clip), pace="unaware", on_update=on_update, stop=stop)
    finally:
        processor.close()
    finished = [w.text for w in SAID if w.end <= cut]
    assert stop.is_set()
    assert len(finished) - 2 <= len(confirmed) <= len(finished), [w.text for w in confirmed]
    assert len(text.words) <= len(finished), [w.text for w in text.words]  # the final text too
