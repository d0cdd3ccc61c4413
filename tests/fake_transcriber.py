"""What the streaming loop needs from a transcriber, without the model: tests' stand-ins subclass it and write
only `transcribe`."""

from __future__ import annotations

from contextlib import nullcontext

from engine.decoder.options import DecodeOptions


class FakeTranscriber:
    """A transcriber with a 30 s window, beam 1 and no guard; subclasses decide what each round says."""

    max_buffer_s = 30.0
    decode_options = DecodeOptions()  # beam 1, no guard
    holds_back = False
    vocabulary = None  # no words to know
    between_steps = None  # what the stream asks to run between decoding steps (a stand-in with steps calls it)

    def text_tokens(self, text: str) -> list[int]:
        """A stand-in tokenizer: each word's length."""
        return [len(word) for word in text.split()]

    def unguarded(self):
        return nullcontext()

    def at_stream_end(self):
        return nullcontext()
