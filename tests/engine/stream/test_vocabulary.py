"""Words to know: parsing a list and a words file, the shared budget, the prompt, and what the decoder makes of it
on a real clip with the real tiny.en."""

import logging

import pytest
from testdata import DATA

from engine.audio.files import load_audio
from engine.decoder.options import DecodeOptions
from engine.errors import SettingsError
from engine.session.words import Word
from engine.stream.round import Transcriber
from engine.stream.vocabulary import (
    PROMPT_TOKENS,
    PROMPT_WORD_TOKENS,
    build_vocabulary,
    parse_words,
    read_words_file,
    word_key,
)

NAMES = "Maintz, Schoeffer"  # LJ001-0024: "… printed at Maintz by Peter Schoeffer in the year 1462"
UNRELATED = "Kubernetes, Zanzibar, Okonkwo, photosynthesis, Tegucigalpa, Lindqvist, mitochondria, Szczepanski, quinoa"


def test_a_list_is_words_or_phrases_between_commas_or_lines_without_blanks_or_repeats():
    assert parse_words(" Gutenberg,  Peter   Schoeffer\n\n, Maintz,Gutenberg ,") == [
        "Gutenberg",
        "Peter Schoeffer",
        "Maintz",
    ]


def test_words_compare_without_case_accents_punctuation_or_a_possessive():
    assert {word_key(w) for w in ("Lübeck", "lubeck,", '"Lubeck\'s."', "LUBECK’S")} == {"lubeck"}
    assert word_key("Maintz") != word_key("Mains")


def test_a_words_file_has_one_word_a_line_and_comments(tmp_path):
    path = tmp_path / "names.txt"
    path.write_text("# printers\nGutenberg\n\n  Peter Schoeffer  # of Maintz\nMaintz\n", encoding="utf-8")
    assert read_words_file(path) == "Gutenberg, Peter Schoeffer, Maintz"


@pytest.mark.parametrize(
    "content, message",
    [
        (b"Gutenberg\n\x89PNG\xff\xfe\x00\n", r"names\.txt, line 2: not UTF-8 text"),
        (b"# nothing but comments\n\n   \n#\n", r"names\.txt lists no words"),
        (b"Gutenberg\n" + b"x" * 500 + b"\n", r"names\.txt, line 2: .* is 500 characters long"),
        (b"Guten\x07berg\n", r"names\.txt, line 1: .* has control characters"),
    ],
)
def test_a_malformed_words_file_gets_a_message_naming_the_file_and_line(tmp_path, content, message):
    path = tmp_path / "names.txt"
    path.write_bytes(content)
    with pytest.raises(SettingsError, match=message):
        read_words_file(path)


def test_an_unreadable_words_file_is_named(tmp_path):
    with pytest.raises(SettingsError, match=r"cannot read the words file .*missing\.txt"):
        read_words_file(tmp_path / "missing.txt")


def test_a_list_too_long_for_the_budget_says_what_was_kept_and_what_was_not(tiny_model, caplog):
    words = [f"Name{i}son" for i in range(80)]
    with caplog.at_level(logging.WARNING):
        vocabulary = build_vocabulary(", ".join(words), tiny_model.tokenizer(None))
    assert 0 < len(vocabulary.kept) < 80 and vocabulary.kept + vocabulary.left_out == tuple(words)
    assert sum(len(p) for p in vocabulary.pieces) <= PROMPT_WORD_TOKENS
    notice = vocabulary.notice()
    assert f"{len(vocabulary.left_out)} of 80 words left out" in notice
    assert ", ".join(vocabulary.left_out) in notice and ", ".join(vocabulary.kept) in notice
    assert notice in caplog.text


def test_the_words_go_before_the_confirmed_text_which_keeps_its_tail(tiny_model):
    tokenizer = tiny_model.tokenizer(None)
    vocabulary = build_vocabulary("Gutenberg, Schoeffer, Maintz", tokenizer, "both")
    assert vocabulary.notice() is None
    confirmed = tokenizer.encode(" the first Bible")
    assert tokenizer.decode(vocabulary.prompt(confirmed)) == " Gutenberg, Schoeffer, Maintz. the first Bible"
    long_text = list(range(1000, 1000 + PROMPT_TOKENS - 3))  # room for one word and the period
    assert vocabulary.prompt(long_text) == [*vocabulary.pieces[0][:-1], *vocabulary.end, *long_text]
    assert build_vocabulary("Gutenberg", tokenizer, "bias").prompt(confirmed) == confirmed


def _words(tiny_model, words: str | None, clip: str = "LJ001-0024.wav") -> list[Word]:
    vocabulary = build_vocabulary(words, tiny_model.tokenizer(None))
    transcriber = Transcriber(tiny_model, decode=DecodeOptions(beam_size=5), vocabulary=vocabulary)
    return transcriber.transcribe(load_audio(DATA / clip)).words


def _said(tiny_model, words: str | None, clip: str = "LJ001-0024.wav") -> str:
    return " ".join(w.text.strip() for w in _words(tiny_model, words, clip))


def test_listed_names_the_model_misspells_come_out_right(tiny_model):
    without = _said(tiny_model, None)
    assert "Maintz" not in without and "Schoeffer" not in without
    with_list = _said(tiny_model, NAMES)
    assert "Maintz" in with_list and "Schoeffer" in with_list


def test_a_listed_word_keeps_the_models_own_probability_not_the_bonus(tiny_model):
    # the rounds' rules read a word's probability as how sure it is (AlignAtt confirms sure words at once, the
    # final pass spares utterances of sure words): the bonus that made the beam spell a name must not make it sure
    without, with_list = _words(tiny_model, None), _words(tiny_model, NAMES)
    assert all(0.0 < w.probability <= 1.0 for w in with_list)
    listed = {w.text.strip(" .,"): w.probability for w in with_list if w.text.strip(" .,") in ("Maintz", "Schoeffer")}
    assert set(listed) == {"Maintz", "Schoeffer"} and max(listed.values()) < 0.9
    same = [(a.probability, b.probability) for a, b in zip(without, with_list) if a.text == b.text]
    assert len(same) >= len(without) - 2
    assert [b for _, b in same] == pytest.approx([a for a, _ in same], abs=0.02)


def test_an_unrelated_list_changes_no_word(tiny_model):
    clip = "LJ001-0009.wav"  # "Printing, then, for our purpose, may be considered as the art of making books …"
    assert _said(tiny_model, UNRELATED, clip) == _said(tiny_model, None, clip)


def test_the_final_pass_keeps_the_bias_but_not_the_prompt(tiny_model):
    vocabulary = build_vocabulary(NAMES, tiny_model.tokenizer(None))
    final = Transcriber(tiny_model, vocabulary=vocabulary).final_pass()
    assert final.decode_options.bias is vocabulary.bias and final.prompt_tokens("") == []


def test_the_final_pass_keeps_a_phrase_rare_words_not_its_common_ones(tiny_model):
    vocabulary = build_vocabulary("The Hague, Schoeffer", tiny_model.tokenizer(None))
    confirmed = [Word(text, k, k + 0.5) for k, text in enumerate(["in", "the", "Hague,", "Schoeffer"])]
    final = [Word(text, k, k + 0.5) for k, text in enumerate(["in", "a", "Hag,", "Schofer."])]
    assert [w.text for w in vocabulary.keep_listed(final, confirmed)] == ["in", "a", "Hague,", "Schoeffer."]


def test_the_final_pass_keeps_a_listed_word_only_where_it_wrote_a_word_spelled_like_it(tiny_model):
    # the rounds, prompted with an unrelated list, forced "Reykjavik" on "Rice is"; the final pass heard "Rice"
    vocabulary = build_vocabulary("Reykjavik, Maintz", tiny_model.tokenizer(None))
    confirmed = [Word(text, k, k + 0.5) for k, text in enumerate(["Reykjavik,", "often", "served", "at", "Maintz."])]
    final = [Word(text, k, k + 0.5) for k, text in enumerate(["Rice", "is", "often", "served", "at", "mains."])]
    assert [w.text for w in vocabulary.keep_listed(final, confirmed)] == [
        "Rice",
        "is",
        "often",
        "served",
        "at",
        "Maintz.",
    ]


def test_heard_puts_in_the_prompt_only_the_listed_words_a_round_wrote_or_misspelt(tiny_model):
    tokenizer = tiny_model.tokenizer("en")
    vocabulary = build_vocabulary("Maintz, oboe, Reykjavik", tokenizer, "heard")
    confirmed = tokenizer.encode(" the first Bible")
    assert vocabulary.prompt(confirmed) == confirmed and vocabulary.bias is not None
    said = [Word(text, 0.0, 0.5) for text in ("printed", "at", "mains", "to", "be", "Rice")]
    heard = vocabulary.heard_in(said)  # "be" is too short to stand for "oboe", "Rice" is spelled otherwise
    assert heard == {0}
    assert tokenizer.decode(vocabulary.prompt(confirmed, heard)) == " Maintz. the first Bible"
    assert vocabulary.heard_in([Word("Oboe.", 0.0, 0.5)]) == {1}  # a short word written as listed


def test_a_transcriber_prompts_a_heard_word_from_the_round_after_it_was_written(tiny_model):
    tokenizer = tiny_model.tokenizer("en")
    transcriber = Transcriber(tiny_model, vocabulary=build_vocabulary("Maintz, Zanzibar", tokenizer, "heard"))
    audio = load_audio(DATA / "LJ001-0024.wav")
    assert transcriber.prompt_tokens("") == []
    transcriber.transcribe(audio)  # "... printed at Maintz (or mains) by Peter Schoeffer ..."
    assert transcriber.heard == {0}
    assert tokenizer.decode(transcriber.prompt_tokens("")) == " Maintz."
