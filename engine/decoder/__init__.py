"""The decoder: beam search, beam pruning, one-pass verification, logit rules, the per-round decoder sessions,
word timing."""
