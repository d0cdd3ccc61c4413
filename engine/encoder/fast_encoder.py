"""A faster Whisper audio encoder for MLX's CPU backend, with the same outputs within float32 tolerance.

MLX's CPU backend computes exp and erf one scalar at a time (about 20x slower than
numpy's vectorised exp here), so softmax and GELU took about 75% of encoder time. This
encoder keeps the matmuls, layer norms and convolutions in MLX (on OpenBLAS) and runs
those two functions in numpy, in place on the MLX buffers through array views (MLX
documents writes through such views). The math stays the reference's to float32 precision:
GELU with erf from exp (engine.model.gelu; scipy's scalar erf was a third of a short
buffer's encoder time), max-subtracted softmax. Only the order changes: rows are normalised after
the weighted sum, and long inputs run attention a block of query rows at a time. On a
GPU, or with float16 weights, the reference encoder runs unchanged.

``fast_encode(model.encoder, mel)`` is a function, not a replacement encoder class, because
the same loaded model is also differentiated (hush-word training), which needs the
reference path.

Measured here and rejected: ``mx.fast.scaled_dot_product_attention`` and ``mx.compile``
(the same scalar exp inside; no faster, compiled exp slower), ``precise=False`` softmax
(4% faster: still scalar exp), ``nn.gelu_approx`` / ``gelu_fast_approx`` (fast, but off
by 5e-4 / 2e-2 from exact GELU), a numba erf (no faster than scipy's), small attention
blocks that fit in L2 (per-call matmul overhead outweighed the cache).
"""

from __future__ import annotations

import mlx.core as mx
import numpy as np

from engine.model import gelu
from engine.model.whisper_model import VarLenAudioEncoder

SCORES_PER_BLOCK = 1 << 22  # attention scores held at once (16 MiB of float32); smaller blocks measured slower


def _numpy_view(a: mx.array) -> np.ndarray:
    """A writable numpy view of a freshly computed MLX array."""
    mx.eval(a)
    view = np.asarray(a)
    assert view.flags.c_contiguous and view.flags.writeable, "in-place update needs a contiguous, owned buffer"
    return view


def gelu_mlx_in_place(h: mx.array) -> mx.array:
    """GELU of an MLX array, computed in place by numpy through a view (engine.model.gelu); returns ``h``."""
    gelu.gelu_in_place(_numpy_view(h))
    return h


def exp_rows_in_place(scores: mx.array) -> mx.array:
    """scores ← exp(scores − row max) in place; returns the row sums, shaped (…, 1)."""
    x = _numpy_view(scores)
    x -= x.max(axis=-1, keepdims=True)
    np.exp(x, out=x)
    return mx.array(x.sum(axis=-1, keepdims=True))


def self_attention(q: mx.array, k: mx.array, v: mx.array, n_head: int) -> mx.array:
    """softmax(q·kᵀ/√d_head)·v over all heads, a block of query rows at a time; (B, T, D) in and out."""
    batch, n_ctx, n_state = q.shape
    d_head = n_state // n_head
    scale = d_head**-0.25
    q = q.reshape(batch, n_ctx, n_head, d_head).transpose(0, 2, 1, 3) * scale
    k = k.reshape(batch, n_ctx, n_head, d_head).transpose(0, 2, 3, 1) * scale
    v = v.reshape(batch, n_ctx, n_head, d_head).transpose(0, 2, 1, 3)
    mx.eval(q, k, v)
    rows = max(1, SCORES_PER_BLOCK // (batch * n_head * n_ctx))
    outputs = []
    for start in range(0, n_ctx, rows):
        scores = q[:, :, start : start + rows] @ k
        sums = exp_rows_in_place(scores)
        out = (scores @ v) / sums
        mx.eval(out)
        outputs.append(out)
    return mx.concatenate(outputs, axis=2).transpose(0, 2, 1, 3).reshape(batch, n_ctx, n_state)


def fast_block(block, x: mx.array) -> mx.array:
    """One residual attention block (self-attention and MLP), as ResidualAttentionBlock computes it."""
    attn = block.attn
    y = block.attn_ln(x)
    x = x + attn.out(self_attention(attn.query(y), attn.key(y), attn.value(y), attn.n_head))
    return x + block.mlp2(gelu_mlx_in_place(block.mlp1(block.mlp_ln(x))))


def fast_stem(encoder: VarLenAudioEncoder, mel: mx.array) -> mx.array:
    """The two convolutions with GELU, plus the positional embedding: the first block's input."""
    x = gelu_mlx_in_place(encoder.conv1(mel))
    x = gelu_mlx_in_place(encoder.conv2(x))
    n_ctx = x.shape[1]
    if n_ctx > encoder._positional_embedding.shape[0]:
        raise ValueError(f"audio longer than 30 s ({n_ctx} > {encoder._positional_embedding.shape[0]} frames)")
    return x + encoder._positional_embedding[:n_ctx]


def fast_path_applies(mel: mx.array) -> bool:
    """True on the CPU with float32 input, where the numpy kernels pay off."""
    return mx.default_device() == mx.cpu and mel.dtype == mx.float32


def fast_encode(encoder: VarLenAudioEncoder, mel: mx.array) -> mx.array:
    """The encoder's output for mel (B, n_frames, n_mels): the fast path on the CPU, else ``encoder(mel)``.

    For inference only: the numpy steps are invisible to mx.grad and mx.compile, so anything
    differentiated (hush-word training) must call ``encoder(mel)`` itself.
    """
    if not fast_path_applies(mel):
        return encoder(mel)
    x = fast_stem(encoder, mel)
    for block in encoder.blocks:
        x = fast_block(block, x)
    return encoder.ln_post(x)
