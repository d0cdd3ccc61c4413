"""Whisper models: where they come from (model store, CTranslate2 conversion) and loading them into MLX."""
