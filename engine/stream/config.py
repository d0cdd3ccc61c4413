"""Stream configuration (a policy and overrides of its settings), and building the processor it describes."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from engine.decoder.options import DecodeOptions
from engine.encoder.input import PAD30
from engine.model.store import DEFAULT_MODEL
from engine.model.whisper_model import LoadedModel
from engine.runtime.blas import set_blas_threads
from engine.runtime.mlx_thread import gpu_available
from engine.stream.emission import Emission
from engine.stream.finalize import FinalPolicy
from engine.stream.policies import DEFAULT_POLICY, POLICIES
from engine.stream.processor import OnlineProcessor
from engine.stream.profiles import Allocation, load_profile
from engine.stream.round import Transcriber
from engine.stream.settings import check_setting
from engine.stream.vocabulary import WORDS_USES, build_vocabulary

PACES = ("realtime", "fast", "unaware")


@dataclass(frozen=True)
class StreamConfig:
    """Everything that decides how a stream is transcribed. None means: the policy decides.

    Each field is a setting declared in engine.stream.settings, with its range, meaning, flag and bench key."""

    model: str = DEFAULT_MODEL
    policy: str = DEFAULT_POLICY
    language: str | None = None
    words: str | None = None  # words to know, separated by commas (engine.stream.vocabulary)
    min_chunk_s: float | None = None
    buffer_trimming_s: float | None = None
    trim_at: str | None = None
    emit: str | None = None
    emit_margin_s: float | None = None
    agree_gap_s: float | None = None
    unsure_gap_s: float | None = None
    max_delay_s: float | None = None
    vad: bool | None = None
    finalize: bool | None = None
    final_sure: float | None = None
    final_uncovered_s: float | None = None
    hush: bool | None = None
    hush_min_s: float | None = None
    beam_size: int | None = None
    beam_pruning: bool | None = None
    verify: bool | None = None
    words_use: str | None = None  # how the decoder uses the words: prompt, bias or both (the default)
    pipeline: bool | None = None
    guard_frames: int | None = None
    peek_tokens: int | None = None
    loop_tokens: int | None = None
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


def validate_stream_config(config: StreamConfig, labels: dict[str, str] | None = None) -> StreamConfig:
    """Check every field of config against its declaration (engine.stream.settings); raise SettingsError.

    labels maps field names to what the person typed (the CLI passes engine.stream.settings.FLAGS, e.g.
    ``{"min_chunk_s": "--min-chunk"}``); without one, a message names the field. Returns config unchanged.
    """
    labels = labels or {}
    for f in fields(config):
        check_setting(f.name, getattr(config, f.name), labels.get(f.name))
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
        peek_tokens=config.peek_tokens or 0,
        loop_tokens=config.loop_tokens or 0,
        decoder=decoder_backend(allocation),
    )
    vad = _speech_detector(config, notices)
    vocabulary = build_vocabulary(config.words, loaded.tokenizer(config.language), config.words_use or WORDS_USES[0])
    if vocabulary is not None and vocabulary.notice():
        notices.append(vocabulary.notice())
    transcriber = Transcriber(
        loaded,
        language=config.language,
        padding=padding,
        decode=decode,
        silence_gate=vad is None,
        vocabulary=vocabulary,
    )
    set_blas_threads(allocation.blas_threads)
    loop = dict(
        buffer_trimming_s=config.buffer_trimming_s,
        min_chunk_s=config.min_chunk_s,
        emission=Emission(config.emit, config.emit_margin_s, config.agree_gap_s, config.unsure_gap_s),
        trim_at=config.trim_at,
        final_policy=FinalPolicy(config.final_sure, config.final_uncovered_s) if config.finalize else None,
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
