"""The `whisperflow` command line, above both the engine and the app."""
