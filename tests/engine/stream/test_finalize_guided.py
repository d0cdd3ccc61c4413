"""The final pass guided through the audio it hears before an utterance (engine/stream/finalize.py): the final text
already heard there is re-read at beam 1 and checked in one pass, and the words come out as an unguided decoding's."""

from pathlib import Path

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.decoder.options import DecodeOptions
from engine.encoder.hush_word import hush_choice
from engine.stream.round import Transcriber

CLIP = Path(__file__).parents[2] / "data" / "LJ001-0003.wav"


def test_a_reference_read_again_costs_beam_one_steps_and_changes_no_word(tiny_model):
    final_pass = Transcriber(tiny_model, padding=hush_choice(tiny_model).padding, decode=DecodeOptions()).final_pass()
    audio = load_audio(CLIP)
    unguided = final_pass.transcribe(audio)
    words = [w.text for w in unguided.words]
    heard = [w.text for w in unguided.words if w.end <= len(audio) / SAMPLE_RATE / 2]  # its first half
    guided = final_pass.transcribe(audio, reference=final_pass.text_tokens(" ".join(heard)))
    assert [w.text for w in guided.words] == words
    assert min(unguided.beam_widths) == 5
    assert guided.beam_widths.count(1) >= len(heard)  # the first half re-read at beam 1
    assert max(guided.beam_widths) == 5  # the rest at the full beam


def test_a_wrong_confirmed_word_in_the_reference_widens_the_beam_and_the_decoding_says_what_was_said(tiny_model):
    final_pass = Transcriber(tiny_model, padding=hush_choice(tiny_model).padding, decode=DecodeOptions()).final_pass()
    audio = load_audio(CLIP)
    words = [w.text for w in final_pass.transcribe(audio).words]
    wrong = len(words) * 2 // 3
    confirmed = words[:wrong] + ["boss"] + words[wrong + 1 :]  # the rounds' guess for one word
    guided = final_pass.transcribe(audio, reference=final_pass.text_tokens(" ".join(confirmed)))
    assert [w.text for w in guided.words] == words
    assert guided.beam_widths.count(1) >= len(words) - 3  # read at beam 1 but around the wrong word
    assert max(guided.beam_widths) == 5
