"""Training a hush word on stream-shaped buffers (development tool)."""
