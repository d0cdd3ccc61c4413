"""`whisperflow stream --you SOURCE --them SOURCE`: both sides of a call captioned at once, each word labelled."""

from __future__ import annotations

import signal
import sys
import threading
from contextlib import nullcontext

from engine.errors import WhisperFlowError


def _check(args) -> None:
    from engine.audio.call_sources import same_source

    if args.you is None or args.them is None:
        raise WhisperFlowError("a call needs both sides: --you SOURCE --them SOURCE (a file, a device or 'system')")
    if args.audio is not None or args.device is not None:
        raise WhisperFlowError("give either a call (--you and --them) or an audio file or --device, not both")
    if args.pace.startswith("replay:"):
        raise WhisperFlowError("a call cannot replay a recorded run's rounds; use --pace realtime, fast or unaware")
    if same_source(args.you, args.them):
        raise WhisperFlowError(f"--you and --them are the same source ({args.you}): give one for each side")


def cmd_call(args) -> int:
    from cli.output import JsonlOutput, check_output_path
    from cli.stream import _CaptionPrinter, _config_from, update_handler
    from engine.audio.call_sources import is_file, open_side
    from engine.audio.echo_canceller import optional_canceller
    from engine.model.whisper_model import load_model
    from engine.runtime.safe_write import write_file_atomic
    from engine.session.events import done_record
    from engine.session.final_text import SideTexts
    from engine.session.turns import speaker_turns
    from engine.stream.call import CallSide, run_call
    from engine.stream.config import build_processor
    from engine.stream.echo_guard import EchoGuard

    _check(args)
    config = _config_from(args)
    files = [s for s in (args.you, args.them) if is_file(s)]
    pace = args.pace if len(files) == 2 else "realtime"  # a live side arrives at its own speed
    check_output_path(args.jsonl, files)
    check_output_path(args.transcript, [*files, args.jsonl], "--transcript")
    sources = {k: open_side(spec, pace, args.duration) for k, spec in (("you", args.you), ("them", args.them))}
    loaded = load_model(config.model)  # one model for both sides
    sides, notices = [], []
    for speaker, source in sources.items():
        processor, side_notices = build_processor(loaded, config)
        sides.append(CallSide(speaker, processor, source))
        notices += [n for n in side_notices if n not in notices]
    canceller = optional_canceller(notices.append) if args.echo_cancel else None
    for notice in notices:
        print(f"note: {notice}", file=sys.stderr)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    captions = _CaptionPrinter(sys.stdout if args.jsonl != "-" else sys.stderr)
    text = SideTexts()
    guard = EchoGuard() if args.echo_guard else None
    with JsonlOutput(args.jsonl) if args.jsonl else nullcontext(None) as writer:
        on_update = update_handler(writer, text, captions, args.debug_rounds)

        listening = f"listening: you {sources['you'].name}, them {sources['them'].name}"
        try:
            dones = run_call(
                sides,
                pace=pace,
                on_update=on_update,
                on_started=lambda: print(listening, file=sys.stderr, flush=True),
                stop=stop,
                notices=notices,
                guard=guard,
                canceller=canceller,
            )
        finally:
            captions.close()
        if writer:
            for speaker, done in dones.items():
                writer.write({**done_record(done), "speaker": speaker})
    if args.transcript:
        lines = [f"{t.label}: {' '.join(w.text for w in t.words)}\n" for t in speaker_turns(text.words)]
        write_file_atomic(args.transcript, "".join(lines).encode("utf-8"))
    for speaker, done in dones.items():
        print(f"{speaker}: {done.audio_s:.1f} s of audio in {done.wall_s:.1f} s, {done.rounds} rounds", file=sys.stderr)
    if guard is not None and guard.dropped:
        print(f"echo guard: dropped {guard.dropped} of your words that repeated theirs", file=sys.stderr)
    failed = [f"{speaker}: {done.error}" for speaker, done in dones.items() if done.error]
    if failed:  # the other side went on; every word of both is written
        raise WhisperFlowError("; ".join(failed))
    return 0
