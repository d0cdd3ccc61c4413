"""WhisperFlow engine: everything that hears and decodes. No Qt in here.

Importing it has no side effects: entry points call engine.runtime.startup.prepare() first, before MLX is imported.
"""
