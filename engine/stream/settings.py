"""Every stream setting, declared once: its kind, range or choices, unit, help, group and names.

A setting's name is its StreamConfig field, its key in the app's settings.json and in the bench's results. The rest
is derived from SETTINGS: the flags of `whisperflow stream` (cli/stream.py), the checks of the CLI and of the app's
settings loader (check_setting), the bench's spec keys (tools/bench/configs.py) and the README's flag table
(`python -m engine.stream.settings --markdown`). The policies (engine.stream.policies) are checked against it here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

from engine.errors import SettingsError
from engine.model.store import PACKAGED
from engine.stream.emission import EMIT_POLICIES
from engine.stream.policies import POLICIES
from engine.stream.processor import TRIM_AT
from engine.stream.vocabulary import MAX_WORD_CHARS, WORDS_USES, valid_words

# The settings' groups (the CLI's help and the README list them in this order). A policy sets the settings of
# POLICY_GROUPS; the first group chooses the model, the policy and the language.
GROUPS = ("model and policy", "buffer", "encoder input", "decoder", "emission", "runtime")
POLICY_GROUPS = GROUPS[1:]
_METAVARS = {"s": "S", "frames": "FRAMES", "tokens": "TOKENS"}


@dataclass(frozen=True)
class Setting:
    """One stream setting. None as its value means: the policy decides (unless none_allowed is False)."""

    name: str  # the StreamConfig field
    kind: type  # bool, int, float or str
    group: str  # one of GROUPS
    help: str
    low: float | None = None  # a number's allowed range, inclusive
    high: float | None = None
    unit: str = ""  # of a number: "s", "frames" or "tokens"
    choices: tuple[str, ...] = ()
    expect: str = ""  # what a value with its own check (valid) must be, for the error message
    valid: Callable[[object], bool] | None = None
    none_allowed: bool = True
    flag_name: str = ""  # the CLI flag, where it is not the derived one (kept as people and scripts use it)
    short_name: str = ""  # the bench's key, where it is not the derived one
    value_name: str = ""  # the flag's value in help, where neither the unit nor the kind names it

    @property
    def flag(self) -> str:
        """The `whisperflow stream` flag: --NAME without the unit suffix, e.g. --min-chunk."""
        return self.flag_name or "--" + self.name.removesuffix("_s").replace("_", "-")

    @property
    def short(self) -> str:
        """The bench spec key: NAME without the unit suffix, e.g. min_chunk."""
        return self.short_name or self.name.removesuffix("_s")

    @property
    def metavar(self) -> str | None:
        """The flag's value in help (None for choices: argparse lists them)."""
        if self.choices:
            return None
        return _METAVARS.get(self.unit) or self.value_name or ("N" if self.kind is int else self.short.upper())

    def allowed(self) -> str:
        """What a value may be, as an error message or the README says it."""
        if self.kind is bool:
            return "true or false"
        if self.choices:
            return "one of: " + ", ".join(self.choices)
        if self.expect:
            return self.expect
        return f"from {self.low:g} to {self.high:g}{_unit(self.unit)}"


def _unit(unit: str) -> str:
    return f" {unit}" if unit else ""


def _known_model(value) -> bool:
    from engine.model.store import is_known

    return isinstance(value, str) and is_known(value)


def _known_language(value) -> bool:
    from mlx_whisper.tokenizer import LANGUAGES, TO_LANGUAGE_CODE

    code = str(value).lower()
    return code in LANGUAGES or code in TO_LANGUAGE_CODE


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "model",
        str,
        "model and policy",
        "tiny.en (the default), base, or any mlx-community/whisper-* repo (downloaded from the Hugging Face hub)",
        expect=f"one of: {', '.join(PACKAGED)}, mlx-community/whisper-*",
        valid=_known_model,
        none_allowed=False,
    ),
    Setting(
        "policy",
        str,
        "model and policy",
        "flow (the default, as the app; low-power with the app's Low power setting), low-power, or baseline "
        "(Whisper-Streaming, for comparison); every setting below overrides it",
        choices=tuple(POLICIES),
        none_allowed=False,
    ),
    Setting(
        "language",
        str,
        "model and policy",
        "spoken language for multilingual models (default en)",
        expect="a language Whisper knows, e.g. en, de, fr",
        valid=_known_language,
    ),
    Setting(
        "words",
        str,
        "model and policy",
        "words to know: names and rare words to expect, separated by commas (or one a line in --words-file)",
        expect=f"words or phrases separated by commas, each at most {MAX_WORD_CHARS} characters",
        valid=valid_words,
    ),
    Setting(
        "min_chunk_s",
        float,
        "buffer",
        "new audio a round waits for; rounds run back to back",
        low=0.1,  # rounds of almost no audio below; above 10 s captions lag
        high=10.0,
        unit="s",
    ),
    Setting(
        "buffer_trimming_s",
        float,
        "buffer",
        "cut a buffer longer than this, where --trim-at says",
        low=2.0,
        high=25.0,
        unit="s",
        flag_name="--trim",
        short_name="trim",
    ),
    Setting(
        "trim_at",
        str,
        "buffer",
        "cut it at the end of a completed segment (Whisper-Streaming) or of the last confirmed word",
        choices=TRIM_AT,
    ),
    Setting("vad", bool, "buffer", "skip rounds over silence and confirm the words at each pause (Silero VAD)"),
    Setting("hush", bool, "encoder input", "append the hush word instead of padding to 30 s"),
    Setting(
        "hush_min_s",
        float,
        "encoder input",
        "put silence before the hush word until the encoder's input lasts this long (0: none)",
        low=0.0,
        high=29.5,
        unit="s",
    ),
    Setting(
        "beam_size", int, "decoder", "beam size (1: greedy)", low=1, high=16, flag_name="--beam", short_name="beam"
    ),
    Setting(
        "beam_pruning",
        bool,
        "decoder",
        "beam 1 while re-reading the previous round's text",
        short_name="pruning",
    ),
    Setting(
        "words_use",
        str,
        "decoder",
        "how the decoder uses the words to know: as a bonus for spelling one, and in the prompt once heard (heard), "
        "in every prompt (prompt), the bonus only (bias), or both",
        choices=WORDS_USES,
    ),
    Setting("verify", bool, "decoder", "accept text re-read from the last round in one teacher-forced pass"),
    Setting(
        "guard_frames",
        int,
        "decoder",
        "end a round when the next token attends to the last FRAMES encoder frames (20 ms) of its audio "
        "(AlignAtt); 0 turns it off",
        low=0,
        high=100,
        unit="frames",
        flag_name="--guard",
        short_name="guard",
    ),
    Setting(
        "peek_tokens",
        int,
        "decoder",
        "where the guard ends a round before a word, spell that word on, at most TOKENS tokens, and show it dimmed "
        "(never confirmed from there); 0 turns it off",
        low=0,
        high=8,
        unit="tokens",
        flag_name="--peek",
        short_name="peek",
    ),
    Setting(
        "loop_tokens",
        int,
        "decoder",
        "end a round after the first copy when its text repeats a span back to back, TOKENS tokens or more in all "
        "(a loop, which would otherwise be redone padded); 0 turns it off",
        low=0,
        high=224,
        unit="tokens",
        flag_name="--loop-stop",
        short_name="loop",
    ),
    Setting(
        "emit",
        str,
        "emission",
        "when words are confirmed: agreement (LocalAgreement-2), alignatt (one pass) or hybrid",
        choices=EMIT_POLICIES,
    ),
    Setting(
        "emit_margin_s",
        float,
        "emission",
        "alignatt/hybrid: confirm a word ending this far before the end of the round's audio",
        low=0.0,
        high=2.0,
        unit="s",
        short_name="margin",
    ),
    Setting(
        "agree_gap_s",
        float,
        "emission",
        "agreement: between rounds whose audio ends at least this far apart (0: the last rounds)",
        low=0.0,
        high=3.0,
        unit="s",
        short_name="gap",
    ),
    Setting(
        "unsure_gap_s",
        float,
        "emission",
        "agreement on a word its round is unsure of: between rounds at least this far apart (0: --agree-gap)",
        low=0.0,
        high=3.0,
        unit="s",
    ),
    Setting(
        "max_delay_s",
        float,
        "emission",
        "confirm a word still tentative this long after it was first shown (0: never)",
        low=0.0,
        high=30.0,
        unit="s",
    ),
    Setting(
        "finalize",
        bool,
        "emission",
        "decode each utterance again once it ends (a pause, a length limit), with full context, and replace its "
        "confirmed words",
    ),
    Setting(
        "final_sure",
        float,
        "emission",
        "the final pass leaves as confirmed an utterance whose every word a round heard with this probability or "
        "more (1: it decodes every utterance)",
        low=0.0,
        high=1.0,
        value_name="P",
    ),
    Setting(
        "final_uncovered_s",
        float,
        "emission",
        "an utterance whose words all reach --final-sure is decoded all the same where this much of the speech the "
        "voice-activity detector heard in it lies outside its confirmed words (the rounds missed words there)",
        low=0.0,
        high=30.0,
        unit="s",
    ),
    Setting(
        "pipeline",
        bool,
        "runtime",
        "encode the next round while the last one decodes, as calibration chose (`whisperflow calibrate`)",
    ),
    Setting(
        "blas_threads",
        int,
        "runtime",
        "OpenBLAS threads (0: the library's default); this, --handoff or --decoder sets the thread allocation "
        "instead of the calibrated profile",
        low=0,
        high=64,
        flag_name="--threads",
        short_name="threads",
    ),
    Setting(
        "handoff_tokens",
        int,
        "runtime",
        "pipelined: tokens the accelerator decodes before it hands the round to the CPU executor",
        low=0,
        high=224,
        flag_name="--handoff",
        short_name="handoff",
    ),
    Setting(
        "decoder_device",
        str,
        "runtime",
        "pipelined: where the CPU executor decodes (gpu keeps decoding on the GPU too)",
        choices=("cpu", "gpu"),
        flag_name="--decoder",
        short_name="decoder",
    ),
)
SETTING: dict[str, Setting] = {s.name: s for s in SETTINGS}
FLAGS: dict[str, str] = {s.name: s.flag for s in SETTINGS}  # labels for validate_stream_config's messages


def check_setting(name: str, value, label: str | None = None) -> None:
    """Raise SettingsError naming what is allowed unless value is valid for the setting `name` (None: the policy
    decides). label is what the person typed (e.g. ``--min-chunk``); the setting's name by default."""
    setting = SETTING[name]
    label = label or name
    if value is None and setting.none_allowed:
        return
    if setting.kind in (int, float):
        _check_number(setting, value, label)
        return
    if setting.kind is bool:
        ok = isinstance(value, bool)
    elif setting.choices:
        ok = value in setting.choices
    else:
        ok = value is not None and setting.valid(value)
    if not ok:
        raise SettingsError(f"{label} must be {setting.allowed()} (got {value!r})")


def _check_number(setting: Setting, value, label: str) -> None:
    integer = setting.kind is int
    kind = "a whole number" if integer else "a number"
    low, high, unit = setting.low, setting.high, _unit(setting.unit)
    whole = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (integer and not whole):
        raise SettingsError(f"{label} must be {kind} from {low:g} to {high:g}{unit} (got {value!r})")
    if not low <= value <= high:  # also NaN
        got = f"{value:g}" if isinstance(value, float) else value
        raise SettingsError(f"{label} must be from {low:g} to {high:g}{unit} (got {got})")


def _check_policies() -> None:
    """Every policy sets only declared settings of POLICY_GROUPS, each to a valid value."""
    for policy, values in POLICIES.items():
        for name, value in values.items():
            if name not in SETTING or SETTING[name].group not in POLICY_GROUPS:
                raise ValueError(f"policy {policy!r} sets {name!r}, which is not a declared stream setting")
            check_setting(name, value, f"policy {policy!r}: {name}")


_check_policies()


def _shown(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "on" if value else "off"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _flag_cell(setting: Setting) -> str:
    if setting.kind is bool:
        return f"`{setting.flag}`, `--no-{setting.flag[2:]}`"
    return f"`{setting.flag} {setting.metavar}`" if setting.metavar else f"`{setting.flag}`"


def markdown_table() -> str:
    """The README's table of the stream settings: flag, name, bench key, allowed values, each policy's value."""
    header = ["group", "flag", "name (bench key)", "values", *POLICIES, "what it does"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for group in GROUPS:
        for s in (s for s in SETTINGS if s.group == group):
            names = f"`{s.name}`" + (f" (`{s.short}`)" if s.short != s.name else "")
            values = "on, off" if s.kind is bool else s.allowed().removeprefix("one of: ")
            policies = [_shown(POLICIES[p].get(s.name)) for p in POLICIES]
            cells = [group, _flag_cell(s), names, values, *policies, s.help]
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if sys.argv[1:] != ["--markdown"]:
        sys.exit("usage: python -m engine.stream.settings --markdown  (prints the README's stream flag table)")
    sys.stdout.write(markdown_table())
