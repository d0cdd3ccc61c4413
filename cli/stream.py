"""`whisperflow stream`: live captions from a file or an input device, printed as words are confirmed."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from contextlib import nullcontext

from cli.words import add_words_file_flag, words_from
from engine.errors import WhisperFlowError
from engine.session.transcript import settle_periods
from engine.session.turns import LABELS


def register(sub) -> None:
    p = sub.add_parser("stream", help="caption an audio file or a device live, printing words as they are confirmed")
    p.add_argument("audio", nargs="?", help="audio file (wav, flac, ogg, mp3)")
    p.add_argument("--device", help="input device name or index instead of a file")
    p.add_argument("--you", metavar="SOURCE", help="a call: your side (a file, an input device, or 'system')")
    p.add_argument("--them", metavar="SOURCE", help="a call: the other side (a file, an input device, or 'system')")
    p.add_argument(
        "--echo-guard",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="a call: drop your words that repeat the other side's at the same time (their voice from the speakers)",
    )
    p.add_argument(
        "--echo-cancel",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="a call: remove the other side's voice from your microphone, with their audio as the reference",
    )
    p.add_argument("--duration", type=float, default=None, help="stop a device stream after S seconds")
    p.add_argument("--jsonl", metavar="OUT", help="write round, word and done events as JSON lines ('-' for stdout)")
    p.add_argument("--debug-rounds", action="store_true", help="round events also carry the round's hypothesis")
    p.add_argument(
        "--transcript",
        metavar="FILE.txt",
        help="when the stream ends, write its final text there, one utterance a line",
    )
    _add_stream_flags(p)
    add_words_file_flag(p)
    p.set_defaults(func=cmd_stream)


def _add_stream_flags(p: argparse.ArgumentParser) -> None:
    """--pace, and a flag for each declared stream setting (engine.stream.settings), in a group per kind."""
    from engine.stream.config import PACES
    from engine.stream.settings import GROUPS, POLICY_GROUPS, SETTINGS

    p.add_argument(
        "--pace",
        default="realtime",
        type=_pace,
        metavar="|".join(PACES) + "|replay:RUN.jsonl",
        help="how audio reaches the rounds; replay:RUN.jsonl repeats a recorded run's rounds exactly",
    )
    for group in GROUPS:
        flags = p.add_argument_group(f"{group} settings" if group in POLICY_GROUPS else group)
        for s in (s for s in SETTINGS if s.group == group):
            if s.kind is bool:
                kind = dict(action=argparse.BooleanOptionalAction)
            else:
                kind = dict(type=s.kind, choices=s.choices or None, metavar=s.metavar)
            flags.add_argument(s.flag, dest=s.name, default=None, help=s.help, **kind)


def _pace(value: str) -> str:
    from engine.stream.config import PACES
    from engine.stream.replay import is_replay

    if value in PACES or (is_replay(value) and len(value) > len("replay:")):
        return value
    raise argparse.ArgumentTypeError(f"choose one of {', '.join(PACES)} or replay:RUN.jsonl")


def _config_from(args):
    """The StreamConfig the flags describe (StreamConfig's defaults where none was given), checked."""
    from engine.stream.config import StreamConfig, validate_stream_config
    from engine.stream.settings import FLAGS, SETTINGS

    given = {s.name: getattr(args, s.name) for s in SETTINGS if getattr(args, s.name) is not None}
    given["words"] = words_from(args)
    return validate_stream_config(StreamConfig(**given), FLAGS)


class _CaptionPrinter:
    """Prints confirmed words as a flowing caption line on a terminal. A word ending in a period waits for the word
    after it, confirmed or tentative, which may show the period to be a comma, as the caption window shows it
    (settle_periods); a round later with no word after it, it is printed as it is."""

    def __init__(self, out):
        self.out = out
        self.column = 0
        self.held: str | None = None
        self.speaker: str | None = None  # a call's side whose words the line shows

    def __call__(self, update) -> None:
        if update.speaker is not None and update.confirmed and update.speaker != self.speaker:
            self.close()  # a call's other side speaks: a line of its own, labelled
            self.speaker = update.speaker
            self._write(f"{LABELS[update.speaker]}:")
        fresh = False  # whether the held word came with this update (its round may end with it)
        for w in update.confirmed:
            if self.held is not None:
                self._write(settle_periods([self.held, w.text])[0])
            self.held, fresh = (w.text, True) if w.text.rstrip().endswith(".") else (None, False)
            if self.held is None:
                self._write(w.text)
        if self.held is not None and (update.tentative or not fresh):
            self._write(settle_periods([self.held, update.tentative[0].text if update.tentative else ""])[0])
            self.held = None
        self.out.flush()

    def _write(self, word: str) -> None:
        text = word if self.column == 0 else " " + word
        if self.column + len(text) > 78:
            self.out.write("\n")
            text, self.column = word, 0
        self.out.write(text)
        self.column += len(text)

    def close(self) -> None:
        if self.held is not None:
            self._write(self.held)
            self.held = None
        if self.column:
            self.out.write("\n")
            self.column = 0
        self.out.flush()


def update_handler(writer, text, captions, debug_rounds: bool):
    """What a stream does with each update: its records on disk first (when writing JSONL), then the final text
    (a FinalText or SideTexts) and the terminal captions."""

    def on_update(update) -> None:
        if writer:
            write_records(writer, update, debug_rounds)
        text.confirm(update.confirmed)
        for f in update.finals:
            text.apply(f)
        captions(update)

    return on_update


def write_records(writer, update, debug_rounds: bool) -> None:
    """An update's records, on disk (fsync'd) before it is shown: a kill loses no word that was shown."""
    from engine.session.events import dropped_record, final_record, round_record, word_record

    if update.round:
        writer.write(round_record(update.round, update if debug_rounds else None))
    for d in update.dropped:
        writer.write(dropped_record(d))
    for w in update.confirmed:
        writer.write(word_record(w))
    for f in update.finals:
        writer.write(final_record(f))
    if update.confirmed or update.finals:
        writer.sync()


def cmd_stream(args) -> int:
    if args.you is not None or args.them is not None:
        from cli.call import cmd_call

        return cmd_call(args)
    from cli.output import JsonlOutput, check_output_path
    from engine.audio.sources import FileSource, MicrophoneSource, PacedFileSource
    from engine.errors import DeviceError
    from engine.model.whisper_model import load_model
    from engine.runtime.safe_write import write_file_atomic
    from engine.session.events import done_record
    from engine.session.final_text import FinalText
    from engine.stream.config import build_processor
    from engine.stream.replay import is_replay
    from engine.stream.runner import run_stream

    if (args.audio is None) == (args.device is None):
        raise WhisperFlowError("give an audio file or --device NAME (one of them)")
    if args.duration is not None and not 0 < args.duration < float("inf"):
        raise WhisperFlowError(f"--duration must be a positive number of seconds (got {args.duration:g})")
    config = _config_from(args)
    replayed = args.pace[len("replay:") :] if is_replay(args.pace) else None
    check_output_path(args.jsonl, [args.audio, replayed])
    check_output_path(args.transcript, [args.audio, replayed, args.jsonl], "--transcript")
    if args.audio is not None:
        from engine.audio.files import file_warnings

        for warning in file_warnings(args.audio):
            print(f"warning: {warning}", file=sys.stderr)
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
    final_text = FinalText()
    with JsonlOutput(args.jsonl) if args.jsonl else nullcontext(None) as writer:
        on_update = update_handler(writer, final_text, captions, args.debug_rounds)

        failure = None
        try:
            done = run_stream(
                processor,
                source,
                pace=pace,
                on_update=on_update,
                on_started=lambda: print(f"listening: {source.name}", file=sys.stderr, flush=True),
                stop=stop,
                notices=notices,
            )
        except DeviceError as exc:  # the tail was confirmed as on a clean stop; the summary is still written
            failure, done = exc, getattr(exc, "done", None)
            if done is None:
                raise
        finally:
            captions.close()
        if writer:
            writer.write(done_record(done))
    if args.transcript:
        write_file_atomic(args.transcript, "".join(line + "\n" for line in final_text.lines()).encode("utf-8"))
    print(f"{done.audio_s:.1f} s of audio in {done.wall_s:.1f} s, {done.rounds} rounds", file=sys.stderr)
    if failure is not None:
        raise failure
    return 0
