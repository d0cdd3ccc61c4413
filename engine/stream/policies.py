"""The policies: named sets of stream settings (keyed by the names declared in engine.stream.settings).

A StreamConfig names a policy; each of its settings left None takes the policy's value (StreamConfig.resolved).
"""

from __future__ import annotations

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
    peek_tokens=0,
    loop_tokens=0,
    finalize=False,
    final_sure=1.0,
    final_uncovered_s=0.0,
)
_FLOW = dict(
    _WHISPER_STREAMING,
    hush=True,
    hush_min_s=8.0,
    guard_frames=8,
    peek_tokens=3,
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
    final_sure=0.6,  # an utterance the rounds were this sure of is left as confirmed: decoding it again changed no
    # word that counted and cost a quarter of the final pass's CPU (docs/bench/finalize)
    final_uncovered_s=0.2,  # … unless this much of the speech in it is outside its confirmed words: the rounds missed
    # words there, and none of their guesses shows it (docs/bench/finalize)
)
POLICIES: dict[str, dict] = {
    "baseline": dict(_WHISPER_STREAMING, beam_size=5, beam_pruning=False, verify=False, pipeline=False),
    "flow": _FLOW,
    "low-power": dict(_FLOW, min_chunk_s=2.0, max_delay_s=3.0),  # 1.5 s took 0.52 CPU s per audio s (commit 6f999bc)
}
DEFAULT_POLICY = "flow"  # what StreamConfig, the app and `whisperflow stream` run unless told otherwise
