"""Beam pruning rules (alignment, selective matching, fallback, re-match) on hand-made token sequences."""

import pytest
from mlx_whisper.tokenizer import get_tokenizer

from engine.decoder.beam_pruning import Pruner, skip_tokens

COMMA, STAMP, EOT = 11, 50400, 50256
SKIP = frozenset({COMMA, EOT, *range(50363, 51864)})  # punctuation, specials, timestamps
# "the cat sat on the mat and slept"
THE, CAT, SAT, ON, MAT, AND, SLEPT, BAT, DOG = 100, 101, 102, 103, 104, 105, 106, 107, 108
REFERENCE = [THE, CAT, SAT, ON, THE, MAT, AND, SLEPT]
PREVIOUS = [STAMP, THE, CAT, SAT, COMMA, ON, THE, MAT, STAMP, STAMP, AND, SLEPT, STAMP]  # round 1's tokens


def pruner(rematch: bool = True) -> Pruner:
    return Pruner(list(PREVIOUS), SKIP, rematch=rematch)


def test_skip_tokens_are_specials_timestamps_punctuation_and_whitespace():
    tok = get_tokenizer(False)
    skip = skip_tokens(tok)
    assert tok.eot in skip and tok.timestamp_begin in skip and tok.timestamp_begin + 1500 in skip
    for text in (",", ".", " -", "...", ' "', "?", " "):
        assert all(t in skip for t in tok.encode(text)), text
    for text in (" the", " cat", "'s", " 42", "é"):
        assert not any(t in skip for t in tok.encode(text)), text
    assert skip_tokens(get_tokenizer(False)) is skip  # computed once per encoding


def test_reference_drops_punctuation_timestamps_and_specials():
    assert pruner().reference == REFERENCE
    assert Pruner([STAMP, THE, COMMA, EOT], SKIP).reference == [THE]


def test_alignment_searches_the_first_word_and_skips_leading_timestamps():
    p = pruner()
    assert p.narrow_step(STAMP) and p.position is None
    assert p.narrow_step(SAT) and p.position == 3  # aligned after reference[2]
    assert p.narrow_step(ON) and p.narrow_step(THE) and p.position == 5


def test_alignment_takes_the_first_occurrence():
    p = pruner()
    assert p.narrow_step(THE) and p.position == 1


def test_alignment_failure_falls_back():
    p = pruner()
    assert not p.narrow_step(DOG)
    assert p.position is None


def test_skipped_tokens_keep_beam_one_without_advancing():
    p = pruner()
    assert p.narrow_step(THE) and p.narrow_step(COMMA) and p.narrow_step(STAMP) and p.narrow_step(EOT)
    assert p.position == 1
    assert p.narrow_step(CAT) and p.position == 2


def test_mismatch_falls_back_and_keeps_the_position():
    p = pruner()
    assert p.narrow_step(THE) and p.narrow_step(CAT)
    assert not p.narrow_step(BAT)
    assert p.position == 2


def test_text_past_the_reference_falls_back():
    p = pruner()
    for token in REFERENCE:
        assert p.narrow_step(token)
    assert p.narrow_step(COMMA)
    assert not p.narrow_step(DOG)


def test_rematch_after_a_substitution_needs_two_matching_words():
    p = pruner()
    assert p.narrow_step(THE) and not p.narrow_step(BAT)  # "the bat" where the reference says "the cat"
    assert not p.full_step([STAMP, THE, BAT])
    assert not p.full_step([STAMP, THE, BAT, SAT])  # one word is no anchor
    assert p.full_step([STAMP, THE, BAT, SAT, ON])  # "sat on" = reference[2:4]
    assert p.position == 4
    assert p.narrow_step(THE) and p.narrow_step(MAT)


def test_rematch_after_an_insertion():
    p = pruner()
    assert p.narrow_step(THE) and p.narrow_step(CAT) and not p.narrow_step(DOG)
    assert not p.full_step([THE, CAT, DOG, SAT])
    assert p.full_step([THE, CAT, DOG, SAT, ON]) and p.position == 4


def test_rematch_when_the_beam_returns_to_the_reference_word():
    p = pruner()
    assert p.narrow_step(THE) and not p.narrow_step(BAT)
    assert p.full_step([THE, CAT]) and p.position == 2  # the full beam preferred "cat" after all


def test_rematch_waits_for_a_word_and_never_goes_back():
    p = pruner()
    for token in (THE, CAT, SAT, ON, THE):
        assert p.narrow_step(token)
    assert not p.narrow_step(DOG)
    assert not p.full_step([THE, CAT, SAT, ON, THE, DOG, COMMA])  # newest token is punctuation
    assert not p.full_step([THE, CAT])  # "the cat" lies before the fallback position
    assert p.full_step([THE, CAT, SAT, ON, THE, DOG, AND, SLEPT]) and p.position == 8


def test_no_rematch_past_the_end_of_the_reference():
    p = pruner()
    for token in REFERENCE:
        assert p.narrow_step(token)
    assert not p.narrow_step(DOG)
    assert not p.full_step(REFERENCE + [DOG, AND, SLEPT][-2:])


@pytest.mark.parametrize("sampled", [[THE, BAT, SAT, ON], [THE, CAT]])
def test_without_rematch_the_beam_stays_full(sampled):
    p = pruner(rematch=False)
    assert p.narrow_step(THE) and not p.narrow_step(BAT)
    assert not p.full_step(sampled)


def test_no_draft_before_alignment():
    p = pruner()
    assert p.narrow_step(STAMP)
    assert p.draft([STAMP]) == []


def test_draft_continues_after_the_last_matched_word():
    p = pruner()
    for token in (STAMP, THE, CAT, SAT):
        assert p.narrow_step(token)
    assert p.draft([STAMP, THE, CAT, SAT]) == PREVIOUS[4:]  # the comma, then "on the mat ..."
    assert p.narrow_step(COMMA)
    assert p.draft([STAMP, THE, CAT, SAT, COMMA]) == PREVIOUS[5:]  # the comma was repeated


def test_draft_jumps_to_the_next_word_when_punctuation_or_timestamps_differ():
    p = pruner()
    for token in (THE, CAT, SAT, ON, THE, MAT):
        assert p.narrow_step(token)
    assert p.draft([THE, CAT, SAT, ON, THE, MAT]) == PREVIOUS[8:]  # round 1's timestamp pair
    drifted = STAMP + 1
    assert p.narrow_step(drifted)
    assert p.draft([THE, CAT, SAT, ON, THE, MAT, drifted]) == [AND, SLEPT, STAMP]


def test_draft_ends_with_the_reference():
    p = pruner()
    for token in REFERENCE:
        assert p.narrow_step(token)
    assert p.draft(REFERENCE) == [STAMP]
    assert p.draft(REFERENCE + [COMMA]) == []


def test_accepts_does_not_change_state():
    p = pruner()
    assert not p.accepts(THE)  # not aligned yet
    assert p.accepts(STAMP) and p.narrow_step(THE)
    assert p.accepts(CAT) and not p.accepts(SAT) and p.position == 1


def test_draft_from_a_token_the_reference_lacks_or_has_next():
    p = pruner()
    for token in (STAMP, THE, CAT, SAT):
        assert p.narrow_step(token)
    sampled = [STAMP, THE, CAT, SAT]
    assert p.draft_from(sampled, COMMA) == PREVIOUS[4:]  # the comma it has next: the draft as it is
    assert p.draft_from(sampled, ON) == [ON, *PREVIOUS[6:]]  # a word where it had a comma: then what follows ON
    assert p.draft_from(sampled, STAMP) == [STAMP, *PREVIOUS[5:]]  # a timestamp it lacks: then its next word
    assert p.position == 3  # looking ahead changed nothing
