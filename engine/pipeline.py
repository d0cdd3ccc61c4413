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
about prefill + max(encode, decode) + DTW instead of their sum. On a Mac the accelerator is
MLX's GPU; without a GPU both executors are CPU streams on their own threads and still overlap.
"""
from __future__ import annotations

import time
from concurrent.futures import Future
from typing import Generator

import numpy as np

from .asr import Encoded, Transcriber
from .beam_search import run_steps
from .decoding import DecodeResult
from .executor import Executor
from .profile_store import Allocation
from .streaming import OnlineProcessor
from .words import Word


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
        self._pending: tuple[Future[Encoded], float] | None = None

    def process_iter(self) -> list[Word]:
        if not len(self.audio_buffer):
            return []
        forced = self._begin_round()
        return forced + self._step(self.window().copy())

    def _step(self, snapshot: np.ndarray | None) -> list[Word]:
        """Decode the pending round while the accelerator encodes snapshot (if any)."""
        pending, self._pending = self._pending, None
        if pending is None:
            if snapshot is not None:
                self._pending = (self.accelerator.submit(lambda: self.transcriber.encode(snapshot)), self.buffer_offset)
            return []
        future, offset = pending
        encoded = future.result()
        prompt, reference = self.transcriber.prompt_tokens(self.prompt()), self.last_tokens
        steps = self.transcriber.decode_steps(encoded, prompt, reference)
        t0 = time.perf_counter()
        head = self.accelerator.submit(lambda: _advance(steps, 1 + self.allocation.handoff_tokens))
        if snapshot is not None:
            self._pending = (self.accelerator.submit(lambda: self.transcriber.encode(snapshot)), self.buffer_offset)
        result = head.result() or self._decode_rest(steps)
        if self.transcriber.degenerate(result, encoded):
            encoded, result = self.transcriber.padded_round(encoded, prompt, reference)
        decode_s = time.perf_counter() - t0
        round_result = self.accelerator.submit(lambda: self.transcriber.assemble(encoded, result, decode_s)).result()
        return self._apply(round_result, offset)

    def _decode_rest(self, steps: Generator) -> DecodeResult:
        import mlx.core as mx

        with mx.stream(mx.gpu if self.cpu_device == "gpu" and mx.metal.is_available() else mx.cpu):
            return run_steps(steps)

    def _drain(self) -> list[Word]:
        return self._step(None)

    def close(self) -> None:
        self.accelerator.close()
