"""Configurations to compare, written as short specs: ``POLICY[+FLAG...][:KEY=VALUE,...]``.

Examples: ``baseline``, ``baseline+hush``, ``flow``, ``flow:min_chunk=0.5``, ``baseline:beam=5,model=base``.
FLAGs switch a yes/no setting on (hush, pruning, pipeline); KEYs set any stream setting, by the names its
declaration in engine.stream.settings gives it, except `words`, which names a list per recording (none, own or
unrelated: tools.bench.word_lists), e.g. ``flow:words=own,words_use=prompt``, and `cuts`, which names another row
whose rounds this one replays in each realtime draw (its audio cut at the same instants, on the same clock), so the
two differ by their settings only, not by where the machine's load let the rounds fall:
``unrelated=flow:words=unrelated,cuts=none``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from engine.errors import WhisperFlowError
from engine.stream.config import StreamConfig
from engine.stream.policies import POLICIES
from engine.stream.settings import POLICY_GROUPS, SETTINGS, Setting
from tools.bench.peer import PEER_LABEL
from tools.bench.word_lists import LISTS


def _keys(setting: Setting) -> set[str]:
    """What a spec may call a setting: its bench key (e.g. margin), its name (emit_margin_s) and its flag's
    (emit_margin)."""
    return {setting.short, setting.name, setting.flag.removeprefix("--").replace("-", "_")}


# Each KEY a spec accepts, for the setting (StreamConfig field) it sets. The policy is the spec's head.
KEYS = {key: s for s in SETTINGS if s.name != "policy" for key in sorted(_keys(s))}
KEYS["chunk"] = KEYS["min_chunk"]  # as older specs wrote it
_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}


def _described(setting: Setting) -> str:
    if setting.kind is bool:
        return f"{setting.short} (on/off)"
    if setting.choices:
        return f"{setting.short} ({'/'.join(setting.choices)})"
    return f"{setting.short} ({setting.unit})" if setting.unit else setting.short


SYNTAX_HELP = (
    "[NAME=]POLICY[+FLAG...][:KEY=VALUE,...] (NAME labels the row), or peer (Whisper-Streaming's whisper_online.py, "
    f"see --peer-script); POLICY is one of {', '.join(POLICIES)}; FLAG switches a yes/no KEY on: "
    + ", ".join(s.short for s in SETTINGS if s.kind is bool)
    + "; KEY is "
    + ", ".join(_described(s) for s in SETTINGS if s.group in POLICY_GROUPS)
    + ", model or language; words (none/own/unrelated: each recording's own names or 20 unrelated words);"
    " cuts (another row's NAME: replay its rounds in each realtime draw, for a comparison paired round for round)"
    " (`whisperflow stream --help` and the README say what each does; a KEY may also be the"
    " setting's name, e.g. min_chunk_s, or its flag's, e.g. emit_margin)."
    " Examples: baseline  baseline+hush  flow  flow:min_chunk=0.5  baseline:beam=5,model=base"
    "  flow:threads=1,handoff=8  flow+hush:guard=4"
)


@dataclass(frozen=True)
class BenchConfig:
    """A labelled stream configuration (the label is the spec as written)."""

    label: str
    stream: StreamConfig
    peer: bool = False  # Whisper-Streaming's own script (tools.bench.peer) instead of a WhisperFlow stream
    words: str = "none"  # the words-to-know list each recording runs with (tools.bench.word_lists.LISTS)
    cuts: str = ""  # at the realtime pace, the row whose rounds this one replays in the same draw ("": its own)


def _setting(key: str) -> Setting:
    if key not in KEYS:
        raise WhisperFlowError(f"unknown setting {key!r} in a config; known: {', '.join(sorted(KEYS))}")
    return KEYS[key]


def _value(setting: Setting, text: str):
    name, kind, text = setting.name, setting.kind, text.strip()
    if kind is bool:
        if text.lower() in _TRUE | _FALSE:
            return text.lower() in _TRUE
        raise WhisperFlowError(f"{name} takes on or off, not {text!r}")
    try:
        return kind(text)
    except ValueError as exc:
        wanted = {int: "a whole number", float: "a number"}.get(kind, "text")
        raise WhisperFlowError(f"{name} takes {wanted}, not {text!r}") from exc


def parse_config(spec: str) -> BenchConfig:
    """The configuration a spec describes, labelled by the spec or by a leading ``NAME=``; WhisperFlowError with
    the syntax on anything malformed."""
    spec = spec.strip()
    name, eq, rest = spec.partition("=")
    if eq and re.fullmatch(r"[\w .,()+-]+", name) and rest.strip():
        return replace(parse_config(rest), label=name.strip())
    if spec == PEER_LABEL:
        return BenchConfig(spec, StreamConfig(policy="baseline"), peer=True)
    head, _, settings = spec.partition(":")
    policy, *flags = head.split("+")
    if policy not in POLICIES:
        raise WhisperFlowError(f"config {spec!r}: unknown policy {policy!r}. Syntax: {SYNTAX_HELP}")
    values: dict = {}
    words, cuts = "none", ""
    for flag in flags:
        setting = _setting(flag.strip())
        if setting.kind is not bool:
            raise WhisperFlowError(f"config {spec!r}: +{flag} is not a yes/no setting; write {flag}=VALUE")
        values[setting.name] = True
    for item in filter(None, (s.strip() for s in settings.split(","))):
        key, eq, text = item.partition("=")
        if not eq:
            raise WhisperFlowError(f"config {spec!r}: {item!r} should be KEY=VALUE. Syntax: {SYNTAX_HELP}")
        if key.strip() == "words":
            words = text.strip()
            if words not in LISTS:
                raise WhisperFlowError(f"config {spec!r}: words takes one of {', '.join(LISTS)}, not {words!r}")
            continue
        if key.strip() == "cuts":
            cuts = text.strip()
            continue
        setting = _setting(key.strip())
        values[setting.name] = _value(setting, text)
    if values.get("min_chunk_s") is not None and values["min_chunk_s"] <= 0:
        raise WhisperFlowError(f"config {spec!r}: min_chunk must be positive")
    return BenchConfig(spec, StreamConfig(policy=policy, **values), words=words, cuts=cuts)
