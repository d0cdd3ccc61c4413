"""Words to know: names and rare words a person lists, and what the decoder does with them.

A list is text, words or phrases separated by commas or lines (`--words`, the app's "Words to know"), or a file of
one a line with # comments (`--words-file`). The decoder uses the listed words two ways, as WORDS_USES say:

- prompt: the words go before the confirmed text in every round's prompt, as " Gutenberg, Schoeffer." (the period
  ends the list, so that the text after it starts a sentence as it would without one);
- bias: a bonus for tokens that spell a listed word (engine.decoder.word_bias);
- both: the two;
- heard (the default): the bias, and in the prompt only the listed words the stream has heard, a round having
  written a word spelled like one (Vocabulary.heard_in: "mains" for "Maintz"); from the next round on that word is
  in the prompt. With every word in every prompt, 20 unrelated names pulled the rounds' guesses toward them
  ("Reykjavik" for "Rice is"): the captions' WER rose 1.2 points; heard, it is no list's (docs/bench/words).

The prompt's words and the bias share one budget: the words, in the order listed, that fit in PROMPT_WORD_TOKENS
tokens of the prompt. A longer list keeps its first words; the rest are named in a notice (and the log).

The final pass (engine.stream.finalize) decodes with the bias only; where its text puts a word spelled like a
confirmed listed word in that word's place, the listed word stays (Vocabulary.keep_listed: the beam-5 final pass
rewrote names the rounds, prompted with the words, had right, "Maintz" as "mains"); where it puts a word spelled
otherwise, the rounds had forced the listed word on other speech ("Reykjavik" for "Rice is"), and the final word
stands (docs/bench/words).
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Container, Iterable
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from engine.decoder.word_bias import WordBias, spellings
from engine.errors import SettingsError
from engine.scoring.align import align
from engine.session.words import Word
from engine.stream.agreement import spelling

WORDS_USES = ("heard", "both", "prompt", "bias")  # the first is the default
MAX_WORD_CHARS = 60  # a listed word or phrase is at most this long
PROMPT_WORD_TOKENS = 120  # of Whisper's 223 prompt tokens; the confirmed text keeps the rest (200 characters)
PROMPT_TOKENS = 223  # Whisper's prompt: half its 448-token text context, less the start-of-previous token
SPELLED_ALIKE = 0.65  # a final word this alike a listed word's letters (difflib's ratio) is its misspelling: the
# long-form file's rewritten names score 0.67-0.88 ("Panerts", "mains"); false alarms 0.15-0.62 ("Rice", "touchtone")
HEARD_MIN_CHARS = 4  # a shorter word heard opens only the listed word it spells ("be" is 0.67 alike "oboe")
_SEPARATORS = re.compile(r"[,\n]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_POSSESSIVE = re.compile(r"['’]s$")
_CORE = re.compile(r"^(\W*)(.*?)(\W*)$", re.DOTALL)  # a word's leading punctuation, its letters, its trailing one

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from mlx_whisper.tokenizer import Tokenizer


def parse_words(text: str) -> list[str]:
    """The words or phrases in text, separated by commas or lines, without blanks and repeats, in order."""
    words = (" ".join(w.split()) for w in _SEPARATORS.split(text))
    return list(dict.fromkeys(w for w in words if w))


def word_key(text: str) -> str:
    """A word as listed words are compared: its letters and digits, without accents, case or a possessive 's
    ("Lübeck's," is "lubeck")."""
    core = _CORE.match(unicodedata.normalize("NFKD", text.casefold())).group(2)
    return spelling(_POSSESSIVE.sub("", core))  # accents are marks of their own after NFKD, not letters


def word_problem(word: str) -> str | None:
    """What is wrong with a listed word or phrase, or None."""
    if len(word) > MAX_WORD_CHARS:
        return f"{len(word)} characters long (a word or phrase is at most {MAX_WORD_CHARS})"
    if _CONTROL.search(word):
        return "has control characters"
    return None


def valid_words(value) -> bool:
    """Whether value is a list of words as a setting holds it (text with at least one word, none malformed)."""
    return isinstance(value, str) and bool(parse_words(value)) and not any(map(word_problem, parse_words(value)))


def read_words_file(path: str | Path) -> str:
    """The words of a words file (one word or phrase a line, # starts a comment), joined by commas. SettingsError
    naming the file and line for a file that cannot be read, is not text, has a malformed line or lists nothing."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise SettingsError(f"cannot read the words file {path}: {exc.strerror or exc}") from exc
    words: list[str] = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SettingsError(f"{path}, line {number}: not UTF-8 text (is it a words file?)") from exc
        line = line.split("#", 1)[0].strip()
        for word in parse_words(line):
            problem = word_problem(word)
            if problem:
                raise SettingsError(f"{path}, line {number}: {word[:20]!r}… is {problem}")
            words.append(word)
    if not words:
        raise SettingsError(f"{path} lists no words (one word or phrase a line; # starts a comment)")
    return ", ".join(dict.fromkeys(words))


@dataclass(frozen=True)
class Vocabulary:
    """The listed words a stream uses (kept) and those over the budget (left_out); the prompt's words as token
    pieces (empty unless the prompt is used) and the bias (None unless used)."""

    kept: tuple[str, ...]
    left_out: tuple[str, ...]
    pieces: tuple[tuple[int, ...], ...]
    bias: WordBias | None
    end: tuple[int, ...] = ()  # the period that ends the list in the prompt
    heard_only: bool = False  # the prompt holds only the words heard (use "heard")
    entry_keys: tuple[tuple[str, ...], ...] = ()  # each kept entry's rare words, as word_key has them

    @cached_property
    def kept_keys(self) -> frozenset[str]:
        """The words the final pass may not replace (keep_listed)."""
        return frozenset(key for entry in self.entry_keys for key in entry)

    def prompt(self, confirmed: list[int], heard: Container[int] = ()) -> list[int]:
        """The round's prompt: the listed words that fit before the confirmed text's tokens (which keep their
        tail: Whisper keeps a prompt's last PROMPT_TOKENS), then the confirmed text; heard: the kept entries
        (their indices) the stream has heard, the only ones in the prompt where heard_only."""
        room = PROMPT_TOKENS - len(confirmed) - len(self.end)
        words: list[int] = []
        for index, piece in enumerate(self.pieces):
            if self.heard_only and index not in heard:
                continue
            if len(words) + len(piece) > room:
                break
            words.extend(piece)
        return words[:-1] + list(self.end) + confirmed if words else confirmed

    def heard_in(self, said: Iterable[Word]) -> set[int]:
        """The kept entries (indices) a round's words spell or misspell: one of the entry's rare words, or a
        word of HEARD_MIN_CHARS or more spelled like it (SPELLED_ALIKE)."""
        keys = {word_key(w.text) for w in said}
        return {
            index
            for index, entry in enumerate(self.entry_keys)
            if any(_spells(key, listed) for listed in entry for key in keys)
        }

    def bias_only(self) -> Vocabulary:
        """This vocabulary without the words in the prompt (the final pass's: engine.stream.round)."""
        return replace(self, pieces=())

    def keep_listed(self, final: list[Word], confirmed: list[Word]) -> list[Word]:
        """The final text with each confirmed listed word it substituted by a word spelled like it put back, with the
        final word's timing and punctuation (words aligned on their normalized text); every other word as final has
        it."""
        ours, theirs = [word_key(w.text) for w in confirmed], [word_key(w.text) for w in final]
        words = list(final)
        for pair in align(ours, theirs):
            if pair.op != "sub" or ours[pair.ref] not in self.kept_keys:
                continue
            if SequenceMatcher(None, ours[pair.ref], theirs[pair.hyp]).ratio() < SPELLED_ALIKE:
                continue  # another word: the rounds forced the listed one on other speech
            said, heard = final[pair.hyp], confirmed[pair.ref]
            lead, _, trail = _CORE.match(said.text).groups()
            words[pair.hyp] = replace(said, text=lead + _CORE.match(heard.text).group(2) + trail)
            log.debug("final pass: kept the listed word %r for %r", heard.text, said.text)
        return words

    def notice(self) -> str | None:
        """What a too-long list kept and left out, for the person; None when every word is kept."""
        if not self.left_out:
            return None
        return (
            f"words to know: {len(self.left_out)} of {len(self.kept) + len(self.left_out)} words left out, past the "
            f"{PROMPT_WORD_TOKENS} tokens a prompt holds for them: {', '.join(self.left_out)} "
            f"(kept: {', '.join(self.kept)})"
        )


@lru_cache(maxsize=8192)  # every round writes mostly the words the round before it wrote
def _spells(key: str, listed: str) -> bool:
    """Whether a written word (its key) is a listed word or, long enough, spelled like it."""
    return key == listed or (
        len(key) >= HEARD_MIN_CHARS and SequenceMatcher(None, key, listed).ratio() >= SPELLED_ALIKE
    )


def _rare_words(phrase: str, tokenizer: Tokenizer) -> list[str]:
    """The words of a listed entry the final pass keeps: a single word always; in a phrase, those Whisper's
    vocabulary does not hold as one token (the "The" of "The Hague" is any "the")."""
    words = phrase.split()
    return words if len(words) == 1 else [w for w in words if len(tokenizer.encode(" " + w.lower())) > 1]


def build_vocabulary(text: str | None, tokenizer: Tokenizer, use: str = WORDS_USES[0]) -> Vocabulary | None:
    """The vocabulary of a list (None without words): its first words within the budget, used as `use` says."""
    words = parse_words(text or "")
    if not words:
        return None
    comma = tuple(tokenizer.encode(","))
    pieces: list[tuple[int, ...]] = []  # each word and a comma (the last one's becomes the period)
    for word in words:
        piece = tuple(tokenizer.encode(f" {word}")) + comma
        if sum(map(len, pieces)) + len(piece) > PROMPT_WORD_TOKENS:
            break
        pieces.append(piece)
    kept, left_out = tuple(words[: len(pieces)]), tuple(words[len(pieces) :])
    bias = None
    if use != "prompt":
        spelled = {form: tokenizer.encode(form) for word in kept for form in spellings(word)}
        bias = WordBias(list(spelled.values()), [tokens for form, tokens in spelled.items() if form[0] == " "])
    in_prompt = use != "bias"
    entries = tuple(tuple(word_key(w) for w in _rare_words(phrase, tokenizer)) for phrase in kept)
    vocabulary = Vocabulary(
        kept,
        left_out,
        tuple(pieces) if in_prompt else (),
        bias,
        tuple(tokenizer.encode(".")),
        heard_only=use == "heard",
        entry_keys=entries,
    )
    if vocabulary.notice():
        log.warning("%s", vocabulary.notice())
    return vocabulary
