"""What a round writes for one word as its window starts earlier or ends later (docs/bench/more-context).

    python -m tools.window_study AUDIO RUN.jsonl --span START END [--config ROW] [--before S ...] [--after S ...]
        [--beam N ...]

RUN.jsonl is a stream's JSONL over AUDIO (`whisperflow stream --jsonl`), or a bench's results.jsonl with --config:
its confirmed words give each window's start (the end of the last word that ends `before` seconds or more ahead of
the span) and its prompt (the words before that start, as a round's). Each window ends `after` seconds past the
span and is decoded afresh (no pruning reference) by `flow`'s transcriber (the hush word, its guard and loop stop)
and by the same padded to 30 s, at each beam. A row per transcriber, beam and start; a cell per end: the words
written within NEAR_S of the span.
"""

# ruff: noqa: E402  (the start-up step comes before the imports that load MLX)
from __future__ import annotations

import argparse
import json
from copy import copy
from dataclasses import replace
from pathlib import Path

from engine.runtime.startup import prepare

prepare()  # first: OpenBLAS before MLX, which the imports below load (this module also runs on its own)

from engine.audio.files import SAMPLE_RATE, load_audio
from engine.session.events import WordEvent
from engine.stream.processor import prompt_before
from engine.stream.round import Transcriber
from tools.bench.stream_score import word_events

NEAR_S = 0.5  # a cell shows the words that reach this close to the span


def window_start(confirmed: list[WordEvent], span_start: float, before: float) -> float:
    """The end of the last confirmed word that ends at least `before` seconds ahead of the span (0: none does)."""
    ends = [w.end for w in confirmed if w.end <= span_start - before]
    return ends[-1] if ends else 0.0


def words_near(
    transcriber: Transcriber, audio, confirmed: list[WordEvent], span: tuple[float, float], start: float, end: float
) -> str:
    """What the transcriber writes near the span, decoding audio[start:end] after the confirmed words' prompt."""
    piece = audio[int(start * SAMPLE_RATE) : int(end * SAMPLE_RATE)]
    result = transcriber.transcribe(piece, prompt_before(confirmed, start))
    return " ".join(
        w.text.strip() for w in result.words if w.end + start > span[0] - NEAR_S and w.start + start < span[1] + NEAR_S
    )


def at_beam(transcriber: Transcriber, beam: int) -> Transcriber:
    """The transcriber at another beam, without pruning (no reference is given: every window is decoded afresh)."""
    twin = copy(transcriber)
    twin.decode_options = replace(transcriber.decode_options, beam_size=beam, beam_pruning=False)
    return twin


def confirmed_words(path: Path, config: str | None) -> list[WordEvent]:
    """The confirmed words of a stream's JSONL, or of one row (config) of a bench's results.jsonl."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if config is not None:
        records = next((r["words"] for r in records if r.get("type") == "stream" and r.get("config") == config), None)
        if records is None:
            raise SystemExit(f"error: {path} has no stream row {config!r}")
    return word_events(records)


def flow_transcriber(loaded) -> Transcriber:
    """`flow`'s round transcriber, built as the stream builds it."""
    from engine.stream.config import StreamConfig, build_processor

    processor, _ = build_processor(loaded, StreamConfig(policy="flow"))
    processor.close()  # only its transcriber is used
    return processor.transcriber


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.window_study", description=__doc__.splitlines()[0])
    parser.add_argument("audio", help="the audio file the run streamed")
    parser.add_argument("run", help="the run's JSONL (its confirmed words)")
    parser.add_argument(
        "--span",
        nargs=2,
        type=float,
        required=True,
        metavar=("START", "END"),
        help="the word's place in the audio, seconds",
    )
    parser.add_argument(
        "--before",
        nargs="+",
        type=float,
        default=[2.0, 4.0, 8.0, 12.0],
        help="seconds of audio before the span (the window starts at the word end there)",
    )
    parser.add_argument(
        "--after", nargs="+", type=float, default=[0.2, 0.5, 1.0, 2.0], help="seconds of audio after the span"
    )
    parser.add_argument("--beam", nargs="+", type=int, default=[1, 5])
    parser.add_argument("--config", help="RUN is a bench's results.jsonl: take this row's words")
    parser.add_argument("--model", default="tiny.en")
    args = parser.parse_args(argv)
    from engine.model.whisper_model import load_model

    confirmed = confirmed_words(Path(args.run), args.config)
    audio = load_audio(args.audio)
    span = (args.span[0], args.span[1])
    hush = flow_transcriber(load_model(args.model))
    print(
        "| transcriber | beam | window starts s before | "
        + " | ".join(f"ends {a:g} s after" for a in args.after)
        + " |\n|---|---|---|"
        + "---|" * len(args.after)
    )
    for name, base in (("hush word", hush), ("padded to 30 s", hush.padded_twin())):
        for beam in args.beam:
            transcriber = at_beam(base, beam)
            for before in args.before:
                start = window_start(confirmed, span[0], before)
                cells = [words_near(transcriber, audio, confirmed, span, start, span[1] + a) for a in args.after]
                print(f"| {name} | {beam} | {span[0] - start:.1f} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
