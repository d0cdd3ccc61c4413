"""The `whisperflow` command line: stream, transcribe, models, devices, doctor (and the app with no arguments)."""
from __future__ import annotations

import argparse
import importlib
import signal
import sys
import threading
from pathlib import Path
from contextlib import nullcontext

from .errors import WhisperFlowError
from .model_store import DEFAULT_MODEL


def _add_stream_flags(p: argparse.ArgumentParser) -> None:
    from .stream_config import PACES, POLICIES

    p.add_argument("--model", default=DEFAULT_MODEL, help="tiny.en (default), base, or mlx-community/whisper-*")
    p.add_argument("--policy", default="baseline", choices=sorted(POLICIES))
    p.add_argument("--language", default=None, help="spoken language for multilingual models (default en)")
    p.add_argument("--pace", default="realtime", type=_pace, metavar="|".join(PACES) + "|replay:RUN.jsonl",
                   help="how audio reaches the rounds; replay:RUN.jsonl repeats a recorded run's rounds exactly")
    p.add_argument("--min-chunk", type=float, default=1.0, metavar="S", help="new audio per round (s)")
    p.add_argument("--hush", action=argparse.BooleanOptionalAction, default=None, help="append the hush word instead of padding to 30 s")
    p.add_argument("--beam", type=int, default=None, metavar="N", help="beam size")
    p.add_argument("--beam-pruning", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("--verify", action=argparse.BooleanOptionalAction, default=None,
                   help="accept text re-read from the last round in one teacher-forced pass")
    p.add_argument("--pipeline", action=argparse.BooleanOptionalAction, default=None)


def _pace(value: str) -> str:
    from .replay import is_replay
    from .stream_config import PACES

    if value in PACES or (is_replay(value) and len(value) > len("replay:")):
        return value
    raise argparse.ArgumentTypeError(f"choose one of {', '.join(PACES)} or replay:RUN.jsonl")


def _config_from(args):
    from .stream_config import StreamConfig

    return StreamConfig(
        model=args.model, policy=args.policy, language=args.language, min_chunk_s=args.min_chunk,
        hush=args.hush, beam_size=args.beam, beam_pruning=args.beam_pruning, verify=args.verify,
        pipeline=args.pipeline,
    )


def _open_jsonl(path: str | None):
    if path is None:
        return nullcontext(None)
    if path == "-":
        return nullcontext(sys.stdout)
    return open(path, "w", encoding="utf-8")


class _CaptionPrinter:
    """Prints confirmed words as a flowing caption line on a terminal."""

    def __init__(self, out):
        self.out = out
        self.column = 0

    def __call__(self, update) -> None:
        for w in update.confirmed:
            text = w.text if self.column == 0 else " " + w.text
            if self.column + len(text) > 78:
                self.out.write("\n")
                text, self.column = w.text, 0
            self.out.write(text)
            self.column += len(text)
        self.out.flush()

    def close(self) -> None:
        if self.column:
            self.out.write("\n")


def cmd_stream(args) -> int:
    from .events import JsonlWriter, done_record, dropped_record, round_record, word_record
    from .sources import FileSource, MicrophoneSource, PacedFileSource
    from .stream_config import build_processor
    from .stream_runner import run_stream
    from .whisper_model import load_model

    if (args.audio is None) == (args.device is None):
        raise WhisperFlowError("give an audio file or --device NAME (one of them)")
    config = _config_from(args)
    loaded = load_model(config.model)
    processor, notices = build_processor(loaded, config)
    for notice in notices:
        print(f"note: {notice}", file=sys.stderr)
    if args.device is not None:
        source = MicrophoneSource(args.device, max_seconds=args.duration)
        pace = "realtime"
    else:
        pace = args.pace
        source = PacedFileSource(args.audio) if pace == "realtime" else FileSource(args.audio)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    captions = _CaptionPrinter(sys.stdout if args.jsonl != "-" else sys.stderr)
    with _open_jsonl(args.jsonl) as out:
        writer = JsonlWriter(out) if out else None

        def on_update(update) -> None:
            captions(update)
            if writer:
                if update.round:
                    writer.write(round_record(update.round, update if args.debug_rounds else None))
                for d in update.dropped:
                    writer.write(dropped_record(d))
                for w in update.confirmed:
                    writer.write(word_record(w))

        try:
            done = run_stream(processor, source, pace=pace, min_chunk_s=config.min_chunk_s, on_update=on_update,
                              on_started=lambda: print(f"listening: {source.name}", file=sys.stderr, flush=True),
                              stop=stop, notices=notices)
        finally:
            captions.close()
        if writer:
            writer.write(done_record(done))
    print(f"{done.audio_s:.1f} s of audio in {done.wall_s:.1f} s, {done.rounds} rounds", file=sys.stderr)
    return 0


def cmd_transcribe(args) -> int:
    from .asr import Transcriber
    from .audio_io import load_audio
    from .decoding import DecodeOptions
    from .events import JsonlWriter
    from .offline import transcribe_audio
    from .whisper_model import load_model

    audio = load_audio(args.file)
    loaded = load_model(args.model)
    transcriber = Transcriber(loaded, language=args.language, decode=DecodeOptions(beam_size=args.beam))
    words = transcribe_audio(transcriber, audio)
    with _open_jsonl(args.jsonl) as out:
        if out:
            writer = JsonlWriter(out)
            for w in words:
                writer.write({"type": "word", "text": w.text, "start": round(w.start, 3), "end": round(w.end, 3),
                              "emitted": round(len(audio) / 16000, 3), "probability": round(w.probability, 3)})
            writer.write({"type": "done", "audio_s": round(len(audio) / 16000, 3)})
    if args.jsonl != "-":
        print(" ".join(w.text for w in words))
    return 0


def cmd_models(args) -> int:
    from .model_store import list_models, prepare_model, remove_model

    if args.action == "list":
        print(f"{'model':34} {'installed':9} {'prepared':8} {'size MB':>8}  source")
        for m in list_models():
            print(f"{m.name:34} {'yes' if m.available else 'no':9} {'yes' if m.prepared else 'no':8} {m.size_mb:8.0f}  {m.source}")
    elif args.action == "prepare":
        from tqdm import tqdm

        with tqdm(total=100, desc=f"preparing {args.name}", unit="%") as bar:
            def progress(stage: str, fraction: float) -> None:
                bar.set_postfix_str(stage)
                bar.update(int(fraction * 100) - bar.n)

            path = prepare_model(args.name, progress)
        print(path)
    else:
        print(f"removed {args.name}" if remove_model(args.name) else f"{args.name} was not prepared")
    return 0


def cmd_devices(_args) -> int:
    from .devices import list_input_devices, system_audio_sources

    for d in list_input_devices() + system_audio_sources():
        print(f"{d.id!s:>4}  {d.kind:10} {d.name}{'  (default)' if d.is_default else ''}")
    return 0


def cmd_doctor(_args) -> int:
    from .doctor import report

    for line in report():
        print(line)
    return 0


# Subcommands with their own parser: module main(argv), and a line of help.
DELEGATED = {
    "encoder-bench": ("engine.encoder_bench", "encoder time per block and in all, reference vs fast path"),
    "padding-study": ("engine.padding_study", "the hush-word padding study (Table 1 / Figure 11)"),
}
# Modules that add their own subcommands through register(subparsers).
COMMAND_MODULES: tuple[str, ...] = ("engine.bench.cli",)


def cmd_calibrate(args) -> int:
    from tqdm import tqdm

    from .profiler import calibrate, candidate_allocations, plot, table
    from .whisper_model import load_model

    loaded = load_model(args.model)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    allocations = candidate_allocations()
    with tqdm(total=len(allocations), desc="calibrating", unit="allocation") as bar:
        profile = calibrate(loaded, allocations=allocations, cancel=stop, progress=lambda i, n, row: bar.update(i - bar.n))
    if profile is None:
        print("calibration cancelled; the previous profile (if any) is kept", file=sys.stderr)
        return 130
    print(table(profile))
    if args.png:
        print(f"plot: {plot(profile, Path(args.png))}", file=sys.stderr)
    print(f"chosen: {profile.allocation.label()}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="whisperflow", description="On-device live captions with Whisper on MLX.")
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("stream", help="caption an audio file or a device live, printing words as they are confirmed")
    p.add_argument("audio", nargs="?", help="audio file (wav, flac, ogg, mp3)")
    p.add_argument("--device", help="input device name or index instead of a file")
    p.add_argument("--duration", type=float, default=None, help="stop a device stream after S seconds")
    p.add_argument("--jsonl", metavar="OUT", help="write round, word and done events as JSON lines ('-' for stdout)")
    p.add_argument("--debug-rounds", action="store_true", help="round events also carry the round's hypothesis")
    _add_stream_flags(p)
    p.set_defaults(func=cmd_stream)
    p = sub.add_parser("transcribe", help="offline whole-file transcription with word timestamps")
    p.add_argument("file")
    p.add_argument("--model", default=DEFAULT_MODEL)
    p.add_argument("--language", default=None)
    p.add_argument("--beam", type=int, default=1)
    p.add_argument("--jsonl", metavar="OUT")
    p.set_defaults(func=cmd_transcribe)
    p = sub.add_parser("models", help="list, prepare or remove models")
    msub = p.add_subparsers(dest="action")
    msub.add_parser("list")
    for action in ("prepare", "remove"):
        msub.add_parser(action).add_argument("name")
    p.set_defaults(func=cmd_models, action="list")
    sub.add_parser("devices", help="list audio inputs").set_defaults(func=cmd_devices)
    for name, (_, about) in DELEGATED.items():
        sub.add_parser(name, help=about, add_help=False)
    p = sub.add_parser("calibrate", help="measure every thread allocation on the bundled sample and save the best")
    p.add_argument("--model", default=DEFAULT_MODEL)
    p.add_argument("--png", metavar="PATH", help="also save the result as a bar chart")
    p.set_defaults(func=cmd_calibrate)
    sub.add_parser("doctor", help="backend, device, BLAS speed, power meter").set_defaults(func=cmd_doctor)
    for module in COMMAND_MODULES:
        importlib.import_module(module).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in DELEGATED:
        return importlib.import_module(DELEGATED[argv[0]][0]).main(argv[1:]) or 0
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        return _open_app_or_help(parser)
    try:
        return args.func(args)
    except WhisperFlowError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


def _open_app_or_help(parser: argparse.ArgumentParser) -> int:
    try:
        from app.main import run_app
    except ImportError:
        parser.print_help()
        return 0
    return run_app()


if __name__ == "__main__":
    sys.exit(main())
