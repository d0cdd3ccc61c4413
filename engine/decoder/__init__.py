"""The decoder: beam search, beam pruning, verification, the per-round decoder sessions."""
