"""The streaming loop: one round, the processor and its pipelined variant, agreement, the runner, policies and
profiles."""
