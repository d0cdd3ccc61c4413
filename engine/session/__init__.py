"""What a session produces: words, events, transcripts, the crash-safe journal and the exporters."""
