"""One round's decoder state on MLX: cross-attention keys/values computed once and shared by every
hypothesis, and a self-attention cache with one row per live hypothesis.

Same weights and math as mlx_whisper's TextDecoder, with less work per step: the audio's keys and
values are projected once per round and stored as contiguous 3-D per-head arrays (mlx_whisper
re-scales and re-lays them out at every step, and 4-D or transposed matmuls are several times
slower on the CPU); all hypotheses' queries go through cross-attention as one batch (they share
the audio, so the cross-attention cache never needs reordering); self-attention uses MLX's fused
scaled_dot_product_attention. mx.compile of the step did not make it faster on the CPU (the step
is bound by reading the weights: about 130 MB for tiny.en, 80 MB of it the vocabulary projection).

Like the numpy session, it records the alignment heads' cross-attention logits of every forwarded position
(engine.decoder.attention_trace.AttentionTrace), evaluated with each step's logits: the guard and the word times
read them, so a GPU round needs no second decoder pass for its word times.
"""

from __future__ import annotations

import mlx.core as mx
import mlx.nn as nn
import numpy as np
from mlx_whisper.whisper import MultiHeadAttention, ResidualAttentionBlock, Whisper

from engine.decoder.attention_trace import AttentionTrace


def _heads(x: mx.array, n_head: int) -> mx.array:
    """(B, T, D) -> (B, H, T, D/H)."""
    b, t, d = x.shape
    return x.reshape(b, t, n_head, d // n_head).transpose(0, 2, 1, 3)


class DecoderSession:
    """Decodes against one buffer's encoder features; hypotheses are the rows of the self-attention cache."""

    def __init__(self, model: Whisper, features: mx.array, audio_frames: int | None = None):
        """audio_frames: the attention columns the trace keeps (the real audio's; all of features' by default)."""
        if features.shape[0] != 1:
            raise ValueError("a decoder session decodes one audio buffer (features batch must be 1)")
        self.decoder = model.decoder
        self.n_head = model.dims.n_text_head
        self.scale = (model.dims.n_text_state // self.n_head) ** -0.5
        self.cross = [self._project_audio(block.cross_attn, features) for block in self.decoder.blocks]
        mx.eval(self.cross)
        self.cache: list[tuple[mx.array, mx.array]] = []
        self.frames = audio_frames or features.shape[1]
        heads = np.array(model.alignment_heads)
        self.heads = [mx.array(heads[heads[:, 0] == e, 1]) for e in range(len(self.decoder.blocks))]
        self.trace = AttentionTrace()

    def _project_audio(self, attn: MultiHeadAttention, features: mx.array) -> tuple[mx.array, mx.array]:
        """Keys as (H, Dh, T) and values as (H, T, Dh), contiguous."""
        keys = _heads(attn.key(features), self.n_head)[0].transpose(0, 2, 1)
        values = _heads(attn.value(features), self.n_head)[0]
        return mx.contiguous(keys), mx.contiguous(values)

    @property
    def length(self) -> int:
        """Tokens held in the self-attention cache."""
        return self.cache[0][0].shape[2] if self.cache else 0

    @property
    def batch(self) -> int:
        """Live hypotheses (rows of the cache); 1 before the first forward."""
        return self.cache[0][0].shape[0] if self.cache else 1

    def forward(self, tokens: mx.array, positions: list[int] | None = None) -> mx.array:
        """Append tokens (B, n) to the hypotheses and return logits (B, n, n_vocab), evaluated with the step's
        alignment-head attention; only at `positions` (of the n) when given, which spares the vocabulary
        projection of the others."""
        tokens = mx.array(tokens)
        n = tokens.shape[1]
        offset = self.length
        dec = self.decoder
        x = dec.token_embedding(tokens) + dec.positional_embedding[offset : offset + n]
        mask = None if n == 1 else _causal(n, offset, x.dtype)
        new_cache, qk_heads = [], []
        for e, block in enumerate(dec.blocks):
            x, kv, qk = self._block(block, x, mask, self.cache[e] if self.cache else None, self.cross[e])
            new_cache.append(kv)
            if self.heads[e].size:
                b = x.shape[0]
                picked = mx.take(qk, self.heads[e], axis=0)[:, :, : self.frames]  # (h, B*n, frames)
                qk_heads.append(picked.transpose(1, 0, 2).reshape(b, n, -1, self.frames))
        self.cache = new_cache
        if positions is not None:
            x = x[:, mx.array(positions)]
        logits = dec.token_embedding.as_linear(dec.ln(x))
        attention = mx.concatenate(qk_heads, axis=2)
        mx.eval(logits, attention)
        self.trace.add(offset, np.array(attention, dtype=np.float32))
        return logits

    def _block(
        self, block: ResidualAttentionBlock, x: mx.array, mask, cache, cross
    ) -> tuple[mx.array, tuple, mx.array]:
        """One residual block; also returns its cross-attention logits (H, B*n, T)."""
        attn = block.attn
        h = block.attn_ln(x)
        q = _heads(attn.query(h), self.n_head)
        k = _heads(attn.key(h), self.n_head)
        v = _heads(attn.value(h), self.n_head)
        if cache is not None:
            k = mx.concatenate([cache[0], k], axis=2)
            v = mx.concatenate([cache[1], v], axis=2)
        y = mx.fast.scaled_dot_product_attention(q, k, v, scale=self.scale, mask=mask)
        b, n, d = x.shape
        x = x + attn.out(y.transpose(0, 2, 1, 3).reshape(b, n, d))

        # cross-attention: every hypothesis's queries against the shared audio, as one (H, B*n, .) batch
        cq = block.cross_attn.query(block.cross_attn_ln(x)).reshape(b * n, self.n_head, -1).transpose(1, 0, 2)
        qk = (cq * self.scale) @ cross[0]
        y = (mx.softmax(qk, axis=-1, precise=True) @ cross[1]).transpose(1, 0, 2).reshape(b, n, d)
        x = x + block.cross_attn.out(y)

        x = x + block.mlp2(nn.gelu(block.mlp1(block.mlp_ln(x))))
        return x, (k, v), qk

    def reorder(self, sources: list[int]) -> None:
        """Make row j of the self-attention cache a copy of row sources[j] (the beam's parent)."""
        if list(sources) == list(range(self.batch)):
            return
        self.trace.reorder(sources)
        index = mx.array(sources)
        self.cache = [(mx.take(k, index, axis=0), mx.take(v, index, axis=0)) for k, v in self.cache]

    def truncate(self, length: int) -> None:
        """Forget cached positions from `length` on (tokens that were forwarded but rejected)."""
        self.cache = [(k[:, :, :length], v[:, :, :length]) for k, v in self.cache]
        self.trace.truncate(min(self.length, length))


def _causal(n: int, offset: int, dtype: mx.Dtype) -> mx.array:
    """Additive mask for n new queries after `offset` cached positions."""
    rows = mx.arange(n)[:, None] + offset
    cols = mx.arange(offset + n)[None, :]
    return mx.where(cols <= rows, 0.0, -mx.inf).astype(dtype)
