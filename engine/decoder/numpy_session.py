"""One round's decoder state in numpy on the system BLAS: the CPU decoder.

Same interface and math as engine.decoder.mlx_session.DecoderSession (mlx_whisper's TextDecoder), float32,
with the per-op overhead of MLX's CPU backend gone: weights are converted once per model (fused
self-attention QKV, all layers' audio keys/values as one matrix); the audio's keys/values are
projected once per round in one matmul, keys pre-scaled; the self-attention cache is preallocated
and grown by doubling; GELU as the fast encoder's (engine.model.gelu). numpy's BLAS runs single-threaded: the
decoder's matmuls are small, and OpenBLAS's spinning worker threads made them 10-200x slower whenever
another thread (the encoder's executor, another process) held the second core; one thread also
reads the vocabulary projection about as fast.

The session also records the alignment heads' cross-attention logits (model.alignment_heads) of
every forwarded position, so word times come from the decoding itself (AttentionTrace).
"""

from __future__ import annotations

import os
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from engine.decoder.attention_trace import AttentionTrace
from engine.model.gelu import gelu_in_place
from engine.runtime.blas import single_threaded_numpy_blas

_WEIGHTS: dict[int, NumpyDecoderWeights] = {}  # by id(model); an entry goes when its model does


def _np(a) -> np.ndarray:
    """An MLX array as float32 numpy: a read-only view of its memory where it is float32 (each layout below that
    differs is one copy of it), else a converted copy."""
    view = np.asarray(a, dtype=np.float32)
    view.flags.writeable = False
    return view


@dataclass
class _Block:
    ln1: tuple[np.ndarray, np.ndarray]
    qkv_w: np.ndarray  # (d, 3d)
    qkv_b: np.ndarray
    out_w: np.ndarray
    out_b: np.ndarray
    ln2: tuple[np.ndarray, np.ndarray]
    cq_w: np.ndarray
    cq_b: np.ndarray
    cout_w: np.ndarray
    cout_b: np.ndarray
    ln3: tuple[np.ndarray, np.ndarray]
    mlp1_w: np.ndarray
    mlp1_b: np.ndarray
    mlp2_w: np.ndarray
    mlp2_b: np.ndarray


@dataclass
class NumpyDecoderWeights:
    """A model's decoder weights as float32 numpy, laid out for x @ W."""

    # the token embedding transposed, (d, n_vocab), as two contiguous column halves: the vocabulary projection
    # reads this layout about twice as fast as (n_vocab, d), one half on each core; a lookup gathers columns
    vocab_halves: tuple[np.ndarray, np.ndarray]
    positions: np.ndarray
    blocks: list[_Block]
    ln: tuple[np.ndarray, np.ndarray]
    audio_kv_w: np.ndarray  # (d, 2 d n_layer): every layer's cross-attention keys and values
    audio_kv_b: np.ndarray
    n_head: int
    alignment_heads: np.ndarray  # (n, 2) of (layer, head)

    @classmethod
    def from_model(cls, model) -> NumpyDecoderWeights:
        """Converted once per model and cached while the model lives."""
        if id(model) not in _WEIGHTS:
            _WEIGHTS[id(model)] = cls._convert(model)
            weakref.finalize(model, _WEIGHTS.pop, id(model), None)
        return _WEIGHTS[id(model)]

    def embed(self, tokens: np.ndarray) -> np.ndarray:
        """(B, n) token ids -> (B, n, d) embeddings."""
        first, second = self.vocab_halves
        split = first.shape[1]
        low = first[:, np.minimum(tokens, split - 1)]
        high = second[:, np.maximum(tokens - split, 0)]
        return np.where(tokens < split, low, high).transpose(1, 2, 0)

    @classmethod
    def _convert(cls, model) -> NumpyDecoderWeights:
        dec = model.decoder
        ln = lambda m: (_np(m.weight), _np(m.bias))  # noqa: E731
        t = lambda lin: _np(lin.weight).T.copy()  # noqa: E731
        blocks, audio_w, audio_b = [], [], []
        for b in dec.blocks:
            a, c = b.attn, b.cross_attn
            zeros = np.zeros(a.query.bias.shape, np.float32)
            blocks.append(
                _Block(
                    ln(b.attn_ln),
                    np.concatenate([t(a.query), t(a.key), t(a.value)], axis=1),
                    np.concatenate([_np(a.query.bias), zeros, _np(a.value.bias)]),
                    t(a.out),
                    _np(a.out.bias),
                    ln(b.cross_attn_ln),
                    t(c.query),
                    _np(c.query.bias),
                    t(c.out),
                    _np(c.out.bias),
                    ln(b.mlp_ln),
                    t(b.mlp1),
                    _np(b.mlp1.bias),
                    t(b.mlp2),
                    _np(b.mlp2.bias),
                )
            )
            audio_w += [t(c.key), t(c.value)]
            audio_b += [np.zeros(c.value.bias.shape, np.float32), _np(c.value.bias)]
        vocab = _np(dec.token_embedding.weight).T
        half = vocab.shape[1] // 2
        halves = (np.ascontiguousarray(vocab[:, :half]), np.ascontiguousarray(vocab[:, half:]))
        return cls(
            halves,
            _np(dec.positional_embedding),
            blocks,
            ln(dec.ln),
            np.concatenate(audio_w, axis=1),
            np.concatenate(audio_b),
            model.dims.n_text_head,
            np.array(model.alignment_heads.tolist(), dtype=np.int64).reshape(-1, 2),
        )


# One worker for the second half of the vocabulary projection. It runs numpy only (never MLX), so it needs no
# stream of its own; concurrent.futures joins it at exit.
_SECOND_CORE = ThreadPoolExecutor(1, thread_name_prefix="numpy-vocabulary") if (os.cpu_count() or 1) > 1 else None


def _project_vocabulary(x: np.ndarray, halves: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """x @ the vocabulary matrix, one column half on each of two cores. The projection is bound by reading
    the 80 MB matrix (tiny.en, float32), and one core reads only half as fast as two."""
    if _SECOND_CORE is None:
        return np.concatenate([x @ halves[0], x @ halves[1]], axis=-1)
    second = _SECOND_CORE.submit(np.matmul, x, halves[1])
    return np.concatenate([x @ halves[0], second.result()], axis=-1)


def _layer_norm(x: np.ndarray, ln: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    var = np.einsum("...i,...i->...", centered, centered)[..., None] / x.shape[-1]
    return centered / np.sqrt(var + 1e-5) * ln[0] + ln[1]


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class NumpyDecoderSession:
    """Decodes against one buffer's encoder features; hypotheses are the rows of the self-attention cache."""

    def __init__(self, model, features, weights: NumpyDecoderWeights | None = None, audio_frames: int | None = None):
        if features.shape[0] != 1:
            raise ValueError("a decoder session decodes one audio buffer (features batch must be 1)")
        single_threaded_numpy_blas()
        self.w = weights or NumpyDecoderWeights.from_model(model)
        d = self.w.positions.shape[1]
        self.n_head, self.dh = self.w.n_head, d // self.w.n_head
        self.scale = np.float32(self.dh**-0.5)
        audio = np.asarray(features[0], dtype=np.float32)
        kv = audio @ self.w.audio_kv_w + self.w.audio_kv_b  # (T, 2 d L)
        t = audio.shape[0]
        kv = kv.reshape(t, len(self.w.blocks), 2, self.n_head, self.dh)
        self.cross_k = np.ascontiguousarray(kv[:, :, 0].transpose(1, 2, 3, 0)) * self.scale  # (L, H, Dh, T)
        self.cross_v = np.ascontiguousarray(kv[:, :, 1].transpose(1, 2, 0, 3))  # (L, H, T, Dh)
        self.frames = audio_frames or t  # attention columns the trace keeps
        self.heads = [self.w.alignment_heads[self.w.alignment_heads[:, 0] == e, 1] for e in range(len(self.w.blocks))]
        self.trace = AttentionTrace()
        self.k = self.v = np.zeros((len(self.w.blocks), 1, self.n_head, 0, self.dh), np.float32)
        self.length = 0

    @property
    def batch(self) -> int:
        """Live hypotheses (rows of the cache); 1 before the first forward."""
        return self.k.shape[1]

    def _reserve(self, batch: int, length: int) -> None:
        """Grow the cache (doubling) to hold `length` positions for `batch` rows."""
        if length <= self.k.shape[3] and batch == self.batch:
            return
        capacity = max(length, 2 * self.k.shape[3] if length > self.k.shape[3] else self.k.shape[3], 32)
        shape = (len(self.w.blocks), batch, self.n_head, capacity, self.dh)
        k, v = np.empty(shape, np.float32), np.empty(shape, np.float32)
        k[:, :, :, : self.length] = self.k[:, :, :, : self.length]
        v[:, :, :, : self.length] = self.v[:, :, :, : self.length]
        self.k, self.v = k, v

    def forward(self, tokens, positions: list[int] | None = None) -> np.ndarray:
        """Append tokens (B, n) to the hypotheses and return float32 logits (B, n, n_vocab); only at
        `positions` (of the n) when given, which spares the vocabulary projection of the others."""
        tokens = np.asarray(tokens)
        b, n = tokens.shape
        offset = self.length
        self._reserve(b, offset + n)
        x = self.w.embed(tokens) + self.w.positions[offset : offset + n]
        qk_heads = []
        for e, block in enumerate(self.w.blocks):
            x = self._block(e, block, x, offset, qk_heads)
        self.length = offset + n
        self.trace.add(offset, np.concatenate(qk_heads, axis=2))
        if positions is not None:
            x = x[:, positions]
        b, n, d = x.shape
        return _project_vocabulary(_layer_norm(x, self.w.ln).reshape(b * n, d), self.w.vocab_halves).reshape(b, n, -1)

    def _block(self, e: int, blk: _Block, x: np.ndarray, offset: int, qk_heads: list) -> np.ndarray:
        """One residual block on x (B, n, d); its linear layers run on (B*n, d), one matrix product each."""
        b, n, d = x.shape
        h, dh, end = self.n_head, self.dh, offset + x.shape[1]
        x = x.reshape(b * n, d)
        qkv = (_layer_norm(x, blk.ln1) @ blk.qkv_w + blk.qkv_b).reshape(b, n, 3, h, dh).transpose(2, 0, 3, 1, 4)
        self.k[e, :, :, offset:end] = qkv[1]
        self.v[e, :, :, offset:end] = qkv[2]
        scores = (qkv[0] * self.scale) @ self.k[e, :, :, :end].transpose(0, 1, 3, 2)  # (B, H, n, end)
        if n > 1:
            scores[..., offset:] += np.triu(np.full((n, n), -np.inf, np.float32), 1)
        y = (_softmax(scores) @ self.v[e, :, :, :end]).transpose(0, 2, 1, 3).reshape(b * n, d)
        x = x + (y @ blk.out_w + blk.out_b)

        # cross-attention: every hypothesis's queries against the shared audio, as one (H, B*n, .) batch
        cq = (_layer_norm(x, blk.ln2) @ blk.cq_w + blk.cq_b).reshape(b * n, h, dh).transpose(1, 0, 2)
        qk = cq @ self.cross_k[e]  # (H, B*n, T)
        if len(self.heads[e]):
            qk_heads.append(qk[self.heads[e], :, : self.frames].transpose(1, 0, 2).reshape(b, n, -1, self.frames))
        y = (_softmax(qk) @ self.cross_v[e]).transpose(1, 0, 2).reshape(b * n, d)
        x = x + (y @ blk.cout_w + blk.cout_b)
        x = x + (gelu_in_place(_layer_norm(x, blk.ln3) @ blk.mlp1_w + blk.mlp1_b) @ blk.mlp2_w + blk.mlp2_b)
        return x.reshape(b, n, d)

    def reorder(self, sources: list[int]) -> None:
        """Make row j of the self-attention cache a copy of row sources[j] (the beam's parent)."""
        if list(sources) == list(range(self.batch)):
            return
        self.trace.reorder(sources)
        capacity = self.k.shape[3]
        shape = (len(self.w.blocks), len(sources), self.n_head, capacity, self.dh)
        k, v = np.empty(shape, np.float32), np.empty(shape, np.float32)
        k[:, :, :, : self.length] = self.k[:, sources, :, : self.length]
        v[:, :, :, : self.length] = self.v[:, sources, :, : self.length]
        self.k, self.v = k, v

    def truncate(self, length: int) -> None:
        """Forget cached positions from `length` on (tokens that were forwarded but rejected)."""
        self.length = min(self.length, length)
        self.trace.truncate(self.length)
