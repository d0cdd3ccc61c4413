"""`whisperflow bench`: word error rate, per-word latency and cost of streaming configurations on real speech."""
