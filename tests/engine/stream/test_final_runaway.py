"""A final decoding that loops (engine.stream.round's final pass) is decoded again padded to 30 s as soon as the loop
shows, not after running to its token budget, and the padded decoding is the same either way; a round keeps its
loop stop's first copy."""

from testdata import DATA

from engine.audio.files import load_audio
from engine.decoder.options import DecodeOptions
from engine.encoder.hush_word import hush_choice
from engine.encoder.input import Padding
from engine.stream.round import FINAL_LOOP_TOKENS, Round, Transcriber


def _steps_and_result(transcriber: Transcriber, audio) -> tuple[int, Round]:
    """How many steps the unpadded decoding took (the padded retry is not a generator), and the round."""
    round_ = Round(transcriber, audio).encode()
    steps, count = round_.steps([], None), 0
    while True:
        try:
            next(steps)
        except StopIteration:
            return count, round_
        count += 1


def test_a_final_decoding_that_loops_is_decoded_again_padded_once_the_loop_shows(tiny_model):
    final = Transcriber(tiny_model, padding=hush_choice(tiny_model).padding, decode=DecodeOptions()).final_pass()
    assert final.decode_options.loop_runaway and final.decode_options.loop_tokens == FINAL_LOOP_TOKENS
    audio = load_audio(DATA / "LJ001-0008.wav")  # unpadded, tiny.en says "has never been surpassed" over and over
    options = DecodeOptions(beam_size=5, loop_tokens=FINAL_LOOP_TOKENS, loop_runaway=True)
    cut_short = Transcriber(tiny_model, padding=Padding("none"), decode=options)
    to_budget = Transcriber(tiny_model, padding=Padding("none"), decode=DecodeOptions(beam_size=5))
    short_steps, short = _steps_and_result(cut_short, audio)
    long_steps, long = _steps_and_result(to_budget, audio)
    assert short.padded_retry and long.padded_retry
    assert short_steps < long_steps / 2  # the loop's second copy, not the whole budget
    assert short.result.tokens == long.result.tokens  # the same padded decoding
    text = cut_short.tokenizer.decode([t for t in short.result.tokens if t < cut_short.tokenizer.eot])
    assert text.strip().lower().rstrip(".") == "has never been surpassed"
    assert cut_short.padded_twin().decode_options.loop_tokens == 0  # padded, a decoding ends where the speech does


def test_a_round_keeps_the_loop_stops_first_copy(tiny_model):
    audio = load_audio(DATA / "LJ001-0008.wav")
    rounds = Transcriber(tiny_model, padding=Padding("none"), decode=DecodeOptions(beam_size=5, loop_tokens=8))
    _, round_ = _steps_and_result(rounds, audio)
    assert round_.result.looped and not round_.padded_retry
