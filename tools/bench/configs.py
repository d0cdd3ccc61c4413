"""Configurations to compare, written as short specs: ``POLICY[+FLAG...][:KEY=VALUE,...]``.

Examples: ``baseline``, ``baseline+hush``, ``flow``, ``flow:min_chunk=0.5``, ``baseline:beam=5,model=base``.
FLAGs switch a yes/no setting on (hush, pruning, pipeline); KEYs set any stream setting.
"""

from __future__ import annotations

import re
import typing
from dataclasses import dataclass, fields, replace

from engine.errors import WhisperFlowError
from engine.stream.config import POLICIES, StreamConfig
from tools.bench.peer import PEER_LABEL

# Short names accepted in specs, for StreamConfig fields.
ALIASES = {
    "min_chunk": "min_chunk_s",
    "chunk": "min_chunk_s",
    "beam": "beam_size",
    "pruning": "beam_pruning",
    "trim": "buffer_trimming_s",
    "threads": "blas_threads",
    "handoff": "handoff_tokens",
    "guard": "guard_frames",
    "loop": "loop_tokens",
    "margin": "emit_margin_s",
    "gap": "agree_gap_s",
    "unsure_gap": "unsure_gap_s",
    "max_delay": "max_delay_s",
    "hush_min": "hush_min_s",
}
_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off"}

SYNTAX_HELP = (
    "[NAME=]POLICY[+FLAG...][:KEY=VALUE,...] (NAME labels the row), or peer (Whisper-Streaming's whisper_online.py, "
    "see --peer-script);"
    " POLICY is one of "
    + ", ".join(POLICIES)
    + "; FLAG is hush, pruning, verify, pipeline or vad; KEY is min_chunk (s), beam, model, language, trim (s),"
    " trim_at (segment/word), emit (agreement/alignatt/hybrid), margin (s), gap (s: agreement across rounds this far"
    " apart), unsure_gap (s: the same for a word its round is unsure of),"
    " max_delay (s), hush_min (s: silence before the hush word up to this input length), hush, pruning, vad"
    " or pipeline (on/off), guard (frames; 0 off), loop (tokens; 0 off), threads and handoff (an explicit thread"
    " allocation instead of the"
    " calibrated one)."
    " Examples: baseline  baseline+hush  flow  flow:min_chunk=0.5  baseline:beam=5,model=base"
    "  flow:threads=1,handoff=8  flow+hush:guard=4"
)


@dataclass(frozen=True)
class BenchConfig:
    """A labelled stream configuration (the label is the spec as written)."""

    label: str
    stream: StreamConfig
    peer: bool = False  # Whisper-Streaming's own script (tools.bench.peer) instead of a WhisperFlow stream


def _field(key: str) -> str:
    name = ALIASES.get(key, key)
    names = {f.name for f in fields(StreamConfig)} - {"policy"}
    if name not in names:
        keys = sorted(set(ALIASES) | names)
        raise WhisperFlowError(f"unknown setting {key!r} in a config; known: {', '.join(keys)}")
    return name


def _kind(name: str) -> type:
    """The field's type without Optional (str, int, float or bool)."""
    hint = typing.get_type_hints(StreamConfig)[name]
    return next(t for t in typing.get_args(hint) or (hint,) if t is not type(None))


def _value(name: str, text: str):
    kind = _kind(name)
    text = text.strip()
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
        return BenchConfig(spec, StreamConfig(), peer=True)
    head, _, settings = spec.partition(":")
    policy, *flags = head.split("+")
    if policy not in POLICIES:
        raise WhisperFlowError(f"config {spec!r}: unknown policy {policy!r}. Syntax: {SYNTAX_HELP}")
    values: dict = {}
    for flag in flags:
        name = _field(flag.strip())
        if _kind(name) is not bool:
            raise WhisperFlowError(f"config {spec!r}: +{flag} is not a yes/no setting; write {flag}=VALUE")
        values[name] = True
    for item in filter(None, (s.strip() for s in settings.split(","))):
        key, eq, text = item.partition("=")
        if not eq:
            raise WhisperFlowError(f"config {spec!r}: {item!r} should be KEY=VALUE. Syntax: {SYNTAX_HELP}")
        name = _field(key.strip())
        values[name] = _value(name, text)
    if values.get("min_chunk_s") is not None and values["min_chunk_s"] <= 0:
        raise WhisperFlowError(f"config {spec!r}: min_chunk must be positive")
    return BenchConfig(spec, StreamConfig(policy=policy, **values))
