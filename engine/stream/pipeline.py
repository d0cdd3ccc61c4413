"""CPU/GPU pipelining: the accelerator encodes round n+1 while the CPU decodes round n.

Protocol, per call of ``process_iter`` (round n is encoded and waiting; the buffer now holds
the audio of round n+1):

1. accelerator: prompt prefill of round n and its first ``handoff_tokens`` decoding steps
   (the prompt and the beam-pruning reference come from round n-1, which is applied already);
2. accelerator: encode the buffer for round n+1;
3. CPU executor (the calling thread): continue decoding round n from the handed-over decoder
   state, while the accelerator encodes (2);
4. accelerator: DTW word timestamps for round n (queued behind (2));
5. round n goes through LocalAgreement; its confirmed words are returned.

Each round's words are thus returned one call later than in the serial loop, but a call costs
about prefill + max(encode, decode) + DTW instead of their sum. The accelerator is MLX's GPU (Metal on a
Mac, CUDA elsewhere); without a GPU both executors are CPU streams on their own threads and still overlap. The
CPU executor decodes in numpy, or in MLX on the GPU where the allocation says so (engine.stream.config.decoder_backend).
"""

from __future__ import annotations

from collections.abc import Generator
from concurrent.futures import Future

import numpy as np

from engine.decoder.beam_search import run_steps
from engine.decoder.options import DecodeResult
from engine.runtime.executor import Executor
from engine.session.words import Word
from engine.stream.processor import OnlineProcessor
from engine.stream.profiles import Allocation
from engine.stream.round import Round, Transcriber


def _advance(steps: Generator, n: int) -> DecodeResult | None:
    """Run n steps of a decoding generator; the result if it finished within them."""
    try:
        for _ in range(n):
            next(steps)
    except StopIteration as stop:
        return stop.value
    return None


class PipelinedProcessor(OnlineProcessor):
    """The streaming loop with encoding overlapped with the previous round's decoding."""

    def __init__(self, transcriber: Transcriber, allocation: Allocation, **kwargs):
        super().__init__(transcriber, **kwargs)
        self.allocation = allocation
        self.accelerator = Executor("accelerator", "gpu")
        self.cpu_device = allocation.decoder
        self._pending: tuple[Round, Future[Round], float] | None = None

    def _round(self) -> list[Word]:
        forced = self._begin_round()
        return forced + self._step(self.window().copy())

    def _step(self, snapshot: np.ndarray | None) -> list[Word]:
        """Decode the pending round while the accelerator encodes snapshot (if any)."""
        pending, self._pending = self._pending, None
        if pending is None:
            self._encode_next(snapshot)
            return []
        current, encoding, offset = pending
        encoding.result()
        prompt, reference = self.prompt(offset), self.last_tokens
        steps = current.steps(self.transcriber.prompt_tokens(prompt), reference)
        head = self.accelerator.submit(lambda: _advance(steps, 1 + self.allocation.handoff_tokens))
        self._encode_next(snapshot)  # queued behind the head, overlapping the CPU's decoding below
        if head.result() is None:
            self._decode_rest(steps)
        result = self.accelerator.submit(current.assemble).result()
        return self._apply(self.redone_if_stopped_early(result, current.audio, prompt, offset), offset)

    def _encode_next(self, snapshot: np.ndarray | None) -> None:
        if snapshot is not None:
            upcoming = Round(self.transcriber, snapshot)
            self._pending = (upcoming, self.accelerator.submit(upcoming.encode), self.buffer_offset)

    def _decode_rest(self, steps: Generator) -> DecodeResult:
        """Finish the round's decoding on this thread: in numpy for the CPU (engine.stream.config.decoder_backend),
        which needs no MLX stream, or in MLX on the device the allocation names."""
        if self.cpu_device == "cpu":
            return run_steps(steps)
        import mlx.core as mx

        from engine.runtime.mlx_thread import mlx_device

        with mx.stream(mlx_device(self.cpu_device)):
            return run_steps(steps)

    def _drain(self) -> list[Word]:
        return self._step(None)

    def close(self) -> None:
        self.accelerator.close()
