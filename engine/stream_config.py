"""Stream configuration, policies, and building the processor a configuration describes."""
from __future__ import annotations

from dataclasses import dataclass, replace

from .asr import Transcriber
from .decoding import DecodeOptions
from .encoder_input import PAD30
from .model_store import DEFAULT_MODEL
from .streaming import OnlineProcessor
from .whisper_model import LoadedModel

PACES = ("realtime", "fast", "unaware")

# What each policy turns on; explicit flags override.
POLICIES: dict[str, dict] = {
    "baseline": dict(hush=False, beam_size=1, beam_pruning=False, pipeline=False),
    "flow": dict(hush=True, beam_size=1, beam_pruning=False, pipeline=False),
}


@dataclass(frozen=True)
class StreamConfig:
    """Everything that decides how a stream is transcribed. None means: the policy decides."""

    model: str = DEFAULT_MODEL
    policy: str = "baseline"
    language: str | None = None
    min_chunk_s: float = 1.0
    buffer_trimming_s: float = 15.0
    hush: bool | None = None
    beam_size: int | None = None
    beam_pruning: bool | None = None
    pipeline: bool | None = None

    def resolved(self) -> "StreamConfig":
        if self.policy not in POLICIES:
            raise ValueError(f"unknown policy {self.policy!r}; choose one of: {', '.join(POLICIES)}")
        defaults = POLICIES[self.policy]
        return replace(self, **{k: v for k, v in defaults.items() if getattr(self, k) is None})


def build_processor(loaded: LoadedModel, config: StreamConfig) -> tuple[OnlineProcessor, list[str]]:
    """The streaming processor for config, and notices for the person (e.g. a missing hush word)."""
    config = config.resolved()
    notices: list[str] = []
    padding = PAD30
    if config.hush:
        from .hush_word import hush_padding

        hush = hush_padding(loaded)
        if hush is None:
            notices.append(f"no hush word for {loaded.name}: padding each round to 30 s instead")
        else:
            padding = hush
    decode = DecodeOptions(beam_size=config.beam_size or 1)
    transcriber = Transcriber(loaded, language=config.language, padding=padding, decode=decode)
    return OnlineProcessor(transcriber, buffer_trimming_s=config.buffer_trimming_s), notices
