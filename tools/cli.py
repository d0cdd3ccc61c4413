"""The development tools' subcommands, registered like the product's (see cli.main)."""

from __future__ import annotations

import importlib

# Tools with an argument parser of their own: module (with main(argv)) and a line of help.
OWN_PARSER = {
    "encoder-bench": ("tools.encoder_bench", "encoder time per block and in all, reference vs fast path"),
    "decoder-bench": (
        "tools.decoder_bench",
        "decoder step, verify and word-timing time, WER: MLX vs numpy vs CTranslate2",
    ),
    "words-step-bench": ("tools.words_step_bench", "a decoder step's time with and without the words-to-know bias"),
    "padding-study": ("tools.padding_study", "the hush-word padding study (Table 1 / Figure 11)"),
    "overlap-check": ("tools.overlap_check", "GPU encodes alone and beside the CPU decoder on another thread"),
    "schedule-synth": (
        "tools.schedule_synth",
        "a replay schedule from another run's round times, with another min chunk",
    ),
    "window-study": (
        "tools.window_study",
        "what a round writes for one word as its window starts earlier or ends later",
    ),
    "final-pass-study": (
        "tools.final_pass_study",
        "the final pass over the same utterances with other context, beam or padding: WER and CPU",
    ),
    "call-fixture": ("tools.call.fixture", "a two-sided call from two corpus speakers: tracks with and without echo"),
    "call-aec": ("tools.call.aec", "a call's microphone track through PulseAudio's WebRTC echo canceller"),
    "call-bench": ("tools.call.bench", "the call row: attribution, echo, WER against each side alone, cost"),
    "call-score": ("tools.call.score", "a call's JSONL against the fixture: attribution, echo and WER per side"),
    "startup-check": (
        "tools.startup_check",
        "a fresh process's way to its first decoded tokens, stage by stage, with its memory",
    ),
}


def register(sub) -> None:
    importlib.import_module("tools.bench.cli").register(sub)
    for name, (module, about) in OWN_PARSER.items():
        p = sub.add_parser(name, help=about, add_help=False)
        p.set_defaults(
            passes_through=True, func=lambda args, module=module: importlib.import_module(module).main(args.rest) or 0
        )
