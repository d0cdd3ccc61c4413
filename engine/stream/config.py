"""Stream configuration, policies, and building the processor a configuration describes."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from engine.decoder.options import DecodeOptions
from engine.encoder.input import PAD30
from engine.errors import SettingsError
from engine.model.store import DEFAULT_MODEL
from engine.model.whisper_model import LoadedModel
from engine.runtime.blas import set_blas_threads
from engine.runtime.mlx_thread import gpu_available
from engine.stream.emission import EMIT_POLICIES, Emission
from engine.stream.processor import TRIM_AT, OnlineProcessor
from engine.stream.profiles import Allocation, load_profile
from engine.stream.round import Transcriber

PACES = ("realtime", "fast", "unaware")

# What each policy turns on; explicit flags override. The baseline is Whisper-Streaming: padded to 30 s, beam 5,
# serial, 1 s chunks, LocalAgreement-2, trimmed at segment ends. `flow` runs rounds back to back on the hush word
# (after silence up to 8 s: docs/bench/hush-min) with the guard and the loop stop, keeps the buffer short by
# trimming at confirmed words, and finalizes at pauses (measured in docs/bench/long), serially on one BLAS thread
# (a short buffer's products gain nothing from a second core).
# `low-power` is for a laptop on battery: fewer rounds (greedy rounds lost 12 s of the long-form file once).
_WHISPER_STREAMING = dict(
    min_chunk_s=1.0,
    buffer_trimming_s=15.0,
    trim_at="segment",
    emit="agreement",
    emit_margin_s=0.0,
    agree_gap_s=0.0,
    unsure_gap_s=0.0,
    max_delay_s=0.0,
    vad=False,
    hush=False,
    hush_min_s=0.0,
    guard_frames=0,
    loop_tokens=0,
    finalize=False,
)
_FLOW = dict(
    _WHISPER_STREAMING,
    hush=True,
    hush_min_s=8.0,
    guard_frames=8,
    loop_tokens=8,
    beam_size=5,
    beam_pruning=True,
    verify=True,
    pipeline=False,
    blas_threads=1,
    min_chunk_s=0.3,
    buffer_trimming_s=8.0,
    trim_at="word",
    vad=True,
    max_delay_s=2.0,
    emit="hybrid",
    emit_margin_s=0.3,
    agree_gap_s=0.6,
    unsure_gap_s=1.2,
    finalize=True,
)
POLICIES: dict[str, dict] = {
    "baseline": dict(_WHISPER_STREAMING, beam_size=5, beam_pruning=False, verify=False, pipeline=False),
    "flow": _FLOW,
    "low-power": dict(_FLOW, min_chunk_s=2.0, max_delay_s=3.0),  # 1.5 s took 0.52 CPU s per audio s (commit 6f999bc)
}
DEFAULT_POLICY = "flow"  # what the app and `whisperflow stream` run unless told otherwise


@dataclass(frozen=True)
class StreamConfig:
    """Everything that decides how a stream is transcribed. None means: the policy decides."""

    model: str = DEFAULT_MODEL
    policy: str = "baseline"
    language: str | None = None
    min_chunk_s: float | None = None  # new audio a round waits for
    buffer_trimming_s: float | None = None  # a buffer longer than this is cut (at trim_at)
    trim_at: str | None = None  # "segment" (Whisper-Streaming) or "word": the end of the last confirmed word
    emit: str | None = None  # when words are confirmed: agreement, alignatt or hybrid (engine.stream.emission)
    emit_margin_s: float | None = None  # AlignAtt: a word ending this far before the round's audio end is confirmed
    agree_gap_s: float | None = None  # agreement between rounds whose audio ends at least this far apart
    unsure_gap_s: float | None = None  # the same for a word its round is unsure of (engine.stream.agreement.UNSURE)
    max_delay_s: float | None = None  # a word tentative this long after it was first shown is confirmed (0: never)
    vad: bool | None = None  # skip rounds over silence and finalize the words at each pause (Silero VAD)
    finalize: bool | None = None  # decode each utterance again once it ends (engine.stream.finalize)
    hush: bool | None = None
    hush_min_s: float | None = None  # silence before the hush word until the encoder's input lasts this long
    beam_size: int | None = None
    beam_pruning: bool | None = None
    verify: bool | None = None  # accept re-read text in one teacher-forced pass (one-pass verification)
    pipeline: bool | None = None
    guard_frames: int | None = None  # end a round where it attends to its audio's last frames (0: off)
    loop_tokens: int | None = None  # end a round after a span its text repeats back to back, this many tokens (0: off)
    # An explicit thread allocation; all None: the calibrated profile (see engine.stream.profiles.Allocation)
    blas_threads: int | None = None
    handoff_tokens: int | None = None
    decoder_device: str | None = None

    @classmethod
    def for_allocation(cls, allocation: Allocation, **kwargs) -> StreamConfig:
        return cls(
            pipeline=allocation.pipeline,
            blas_threads=allocation.blas_threads,
            handoff_tokens=allocation.handoff_tokens,
            decoder_device=allocation.decoder,
            **kwargs,
        )

    def explicit_allocation(self) -> Allocation | None:
        if self.blas_threads is None and self.handoff_tokens is None and self.decoder_device is None:
            return None
        return Allocation(
            bool(self.pipeline), self.blas_threads or 0, self.handoff_tokens or 0, self.decoder_device or "cpu"
        )

    def resolved(self) -> StreamConfig:
        if self.policy not in POLICIES:
            raise ValueError(f"unknown policy {self.policy!r}; choose one of: {', '.join(POLICIES)}")
        defaults = POLICIES[self.policy]
        return replace(self, **{k: v for k, v in defaults.items() if getattr(self, k) is None})


# The ranges every option and setting must be in (inclusive): one place for the CLI and the app's settings.
# Values: (low, high, unit). A min chunk below 0.1 s makes rounds of almost no audio; above 10 s captions lag.
LIMITS: dict[str, tuple[float, float, str]] = {
    "min_chunk_s": (0.1, 10.0, " s"),
    "buffer_trimming_s": (2.0, 25.0, " s"),
    "emit_margin_s": (0.0, 2.0, " s"),
    "hush_min_s": (0.0, 29.5, " s"),
    "agree_gap_s": (0.0, 3.0, " s"),
    "unsure_gap_s": (0.0, 3.0, " s"),
    "max_delay_s": (0.0, 30.0, " s"),
    "beam_size": (1, 16, ""),
    "blas_threads": (0, 64, ""),
    "handoff_tokens": (0, 224, ""),
    "guard_frames": (0, 100, " frames"),
    "loop_tokens": (0, 224, " tokens"),
}
INTEGER_SETTINGS = ("beam_size", "blas_threads", "handoff_tokens", "guard_frames", "loop_tokens")


def check_setting(key: str, value, label: str | None = None) -> None:
    """Raise SettingsError naming the allowed range unless value is a valid `key` (None: the policy decides)."""
    if value is None or key not in LIMITS:
        return
    low, high, unit = LIMITS[key]
    label = label or key
    integer = key in INTEGER_SETTINGS
    kind = "a whole number" if integer else "a number"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (integer and not float(value).is_integer()):
        raise SettingsError(f"{label} must be {kind} from {low:g} to {high:g}{unit} (got {value!r})")
    if not math.isfinite(value) or not low <= value <= high:
        raise SettingsError(f"{label} must be from {low:g} to {high:g}{unit} (got {value:g})")


def validate_stream_config(config: StreamConfig, labels: dict[str, str] | None = None) -> StreamConfig:
    """Check every field of config against LIMITS, the policy, model and language; raise SettingsError.

    labels maps field names to what the person typed (e.g. ``{"min_chunk_s": "--min-chunk"}``);
    the app's settings loader can call this with its own keys. Returns config unchanged.
    """
    labels = labels or {}
    for f in fields(config):
        check_setting(f.name, getattr(config, f.name), labels.get(f.name))
    if config.policy not in POLICIES:
        raise SettingsError(
            f"{labels.get('policy', 'policy')} must be one of: {', '.join(POLICIES)} (got {config.policy!r})"
        )
    from engine.model.store import PACKAGED, is_known

    if not isinstance(config.model, str) or not is_known(config.model):
        raise SettingsError(
            f"{labels.get('model', 'model')} must be one of: {', '.join(PACKAGED)}, "
            f"mlx-community/whisper-* (got {config.model!r})"
        )
    if config.language is not None:
        from mlx_whisper.tokenizer import LANGUAGES, TO_LANGUAGE_CODE

        code = str(config.language).lower()
        if code not in LANGUAGES and code not in TO_LANGUAGE_CODE:
            raise SettingsError(
                f"{labels.get('language', 'language')} must be a language Whisper knows, "
                f"e.g. en, de, fr (got {config.language!r})"
            )
    for key, allowed in (("emit", EMIT_POLICIES), ("trim_at", TRIM_AT)):
        value = getattr(config, key)
        if value is not None and value not in allowed:
            raise SettingsError(f"{labels.get(key, key)} must be one of: {', '.join(allowed)} (got {value!r})")
    for key in ("hush", "beam_pruning", "verify", "pipeline", "vad", "finalize"):
        value = getattr(config, key)
        if value is not None and not isinstance(value, bool):
            raise SettingsError(f"{labels.get(key, key)} must be true or false (got {value!r})")
    return config


def choose_allocation(config: StreamConfig, notices: list[str]) -> Allocation:
    """The allocation to run: explicit, else the saved calibration profile, else serial (accelerator only, with
    the policy's BLAS threads)."""
    explicit = config.explicit_allocation()  # what was asked for, not what the policy fills in
    config = config.resolved()
    if not config.pipeline or explicit is not None:
        return explicit or Allocation(False, config.blas_threads or 0)
    profile = load_profile(config.model)
    if profile is None:
        notices.append(
            f"no calibration profile for {config.model} on this machine: running without pipelining "
            "(run `whisperflow calibrate`)"
        )
        return Allocation(False)
    return profile.allocation


def decoder_backend(allocation: Allocation) -> str | None:
    """The decoder session a round decodes in. A pipelined round is handed to the executor the allocation names:
    numpy's session for the CPU (the CPU decoder), MLX's for the GPU. A serial round decodes on MLX's default
    device (None: engine.decoder.session chooses)."""
    if not allocation.pipeline:
        return None
    return "mlx" if allocation.decoder == "gpu" and gpu_available() else "numpy"


def build_processor(loaded: LoadedModel, config: StreamConfig) -> tuple[OnlineProcessor, list[str]]:
    """The streaming processor for config, and notices for the person (e.g. a missing hush word)."""
    asked, config = config, config.resolved()
    notices: list[str] = []
    padding = PAD30
    if config.hush:
        from engine.encoder.hush_word import hush_choice

        choice = hush_choice(loaded)
        padding = choice.padding
        if padding is PAD30:
            notices.append(choice.note)
        else:
            padding = replace(padding, min_seconds=config.hush_min_s or 0.0)
    allocation = choose_allocation(asked, notices)  # what was asked for, not the policy's serial threads
    decode = DecodeOptions(
        beam_size=config.beam_size or 1,
        beam_pruning=bool(config.beam_pruning),
        verify_reference=bool(config.verify),
        guard_frames=config.guard_frames or 0,
        loop_tokens=config.loop_tokens or 0,
        decoder=decoder_backend(allocation),
    )
    vad = _speech_detector(config, notices)
    transcriber = Transcriber(
        loaded, language=config.language, padding=padding, decode=decode, silence_gate=vad is None
    )
    set_blas_threads(allocation.blas_threads)
    loop = dict(
        buffer_trimming_s=config.buffer_trimming_s,
        min_chunk_s=config.min_chunk_s,
        emission=Emission(config.emit, config.emit_margin_s, config.agree_gap_s, config.unsure_gap_s),
        trim_at=config.trim_at,
        finalize=bool(config.finalize),
        max_delay_s=config.max_delay_s,
        vad=vad,
    )
    if allocation.pipeline:
        from engine.stream.pipeline import PipelinedProcessor

        return PipelinedProcessor(transcriber, allocation, **loop), notices
    return OnlineProcessor(transcriber, **loop), notices


def _speech_detector(config: StreamConfig, notices: list[str]):
    """Silero VAD when config asks for it; without its model, the stream runs without it and says so."""
    if not config.vad:
        return None
    from engine.audio.vad import SpeechDetector
    from engine.errors import ModelError

    try:
        return SpeechDetector()
    except ModelError as exc:
        notices.append(f"{exc}: every round runs, also over silence")
        return None
