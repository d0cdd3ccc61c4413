"""Encoder input (30 s padding or the hush word) and the audio encoder's fast CPU path."""
