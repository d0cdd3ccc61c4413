"""How a stream is scored: word error rate (Whisper normaliser + jiwer) and per-word latency; used by calibration
and the bench."""
