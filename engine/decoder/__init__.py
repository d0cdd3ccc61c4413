"""The decoder: beam search, beam pruning, one-pass verification, logit rules, word timing."""
