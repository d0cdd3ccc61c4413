"""The `whisperflow bench` subcommand: run configurations over the corpus, or score another system's JSONL."""

from __future__ import annotations

import argparse
import datetime
import sys
import textwrap
from pathlib import Path

from engine.errors import WhisperFlowError

DEFAULT_KINDS = ["short", "long_derived"]

EPILOG = """\
configurations (--configs):
{syntax}

examples:
  whisperflow bench --pace fast --files LJ001-0008.wav          quick check on one clip
  whisperflow bench                                              baseline, short + long_derived, realtime
  whisperflow bench --configs baseline flow flow:min_chunk=0.5   compare three configurations
  whisperflow bench ... --out bench-results/x --resume           the same command again: finish an interrupted
                                                                 run, or only redraw the report of a finished one
  whisperflow bench --configs baseline flow --draws 3            every row three times, with each row's WER
                                                                 against offline and baseline paired by draw
  whisperflow bench --score-jsonl other.jsonl --audio clip.wav   score another system's stream output

Each configuration runs twice per kind of audio, in its own process: at --pace (computation-aware
latency, the headline) and at the unaware pace (the lower bound). Results are appended to
OUT/results.jsonl as each file finishes; OUT/table.md (every column), OUT/accuracy.md (confirmed
and final text against offline, per kind and pooled), OUT/results.json and the PNG plots are
written at the end, also after Ctrl-C.
"""


def register(subparsers) -> None:
    from tools.bench.configs import SYNTAX_HELP

    p = subparsers.add_parser(
        "bench",
        help="WER, per-word latency and cost of streaming configurations on the speech corpus",
        description="Benchmark streaming configurations side by side on real speech, or score a stream JSONL.",
        epilog=EPILOG.format(syntax=textwrap.fill(SYNTAX_HELP, 100, initial_indent="  ", subsequent_indent="  ")),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--manifest",
        type=Path,
        help="corpus manifest TSV (default: shared/corpus/manifest.tsv found "
        "in the working directory or a folder above it)",
    )
    p.add_argument(
        "--kind",
        nargs="+",
        metavar="KIND",
        help=f"kinds of audio to run (default: {' '.join(DEFAULT_KINDS)}, unless --files is given)",
    )
    p.add_argument("--files", nargs="+", metavar="PATTERN", help="only manifest files matching these names or globs")
    p.add_argument("--step", type=int, default=1, metavar="N", help="every N-th file of each kind (default: all)")
    p.add_argument(
        "--configs",
        nargs="+",
        default=["baseline"],
        metavar="SPEC",
        help="configurations to compare (default: baseline); syntax below",
    )
    p.add_argument(
        "--pace",
        default="realtime",
        choices=("realtime", "fast", "unaware"),
        help="pace of the measured run (default realtime: audio arrives at wall-clock speed)",
    )
    p.add_argument(
        "--lower-bound",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also run at the unaware pace for the computation-unaware lower bound (default: yes)",
    )
    p.add_argument(
        "--reference-model",
        metavar="MODEL",
        help="model whose offline transcript gives word end times where there is no forced alignment "
        "(default: the strongest installed model)",
    )
    p.add_argument(
        "--draws",
        type=int,
        default=1,
        metavar="N",
        help="run the whole plan N times, each draw every configuration on every file, interleaved; the report "
        "pairs WER differences by draw, with a 95 %% t-interval from 3 draws (default: 1; the unaware lower bound "
        "runs in the first draw only)",
    )
    p.add_argument("--out", type=Path, metavar="DIR", help="output folder (default: bench-results/DATE-TIME)")
    p.add_argument(
        "--peer-script",
        type=Path,
        metavar="PATH",
        help="Whisper-Streaming's whisper_online.py (a checkout of ufal/whisper_streaming), for the `peer` "
        "configuration: faster-whisper, CPU int8, the same tiny.en; skipped with a note without it",
    )
    p.add_argument(
        "--resume", action="store_true", help="keep the results already in --out and run only what is missing"
    )
    score = p.add_argument_group("scoring another system's output")
    score.add_argument(
        "--score-jsonl", type=Path, metavar="FILE", help="a JSONL in the `whisperflow stream` event format"
    )
    score.add_argument("--audio", type=Path, help="the audio that FILE transcribes")
    score.add_argument(
        "--reference",
        metavar="TEXT_OR_FILE",
        help="reference transcript: text, a text file or a "
        "TextGrid (default: the manifest's, else the reference model's offline transcript)",
    )
    score.add_argument("--label", help="name for FILE in the table (default: its file name)")
    p.set_defaults(func=cmd_bench)


def _manifest(args) -> Path | None:
    from tools.bench.manifest import find_default_manifest

    if args.manifest is not None:
        if not args.manifest.is_file():
            raise WhisperFlowError(f"manifest not found: {args.manifest}")
        return args.manifest
    return find_default_manifest()


def cmd_bench(args) -> int:
    from tools.bench.reference import strongest_local_model

    reference_model = args.reference_model or strongest_local_model()
    if args.score_jsonl is not None:
        from tools.bench.score_jsonl import score_jsonl

        if args.audio is None:
            raise WhisperFlowError("--score-jsonl needs --audio AUDIO (the audio the JSONL transcribes)")
        print(
            score_jsonl(
                args.score_jsonl, args.audio, args.reference, _manifest(args), reference_model, args.label, args.out
            )
        )
        return 0
    if args.audio or args.reference or args.label:
        raise WhisperFlowError("--audio, --reference and --label go with --score-jsonl")
    return _run(args, reference_model)


def _run(args, reference_model: str) -> int:
    from tools.bench.configs import parse_config
    from tools.bench.manifest import load_manifest, select
    from tools.bench.report import write_report
    from tools.bench.results import ResultsLog
    from tools.bench.runner import BenchPlan, run_plan

    manifest = _manifest(args)
    if manifest is None:
        raise WhisperFlowError("no corpus manifest: give --manifest PATH (or run inside a folder below shared/corpus)")
    if args.resume and args.out is None:
        raise WhisperFlowError("--resume needs --out DIR (the run to continue)")
    if args.draws < 1:
        raise WhisperFlowError("--draws takes a whole number from 1")
    available = load_manifest(manifest)
    present = {e.kind for e in available}
    kinds = args.kind or (None if args.files else [k for k in DEFAULT_KINDS if k in present] or None)
    if args.step < 1:
        raise WhisperFlowError("--step takes a whole number from 1")
    entries = select(available, kinds, args.files, args.step)
    configs = [parse_config(spec) for spec in args.configs]
    labels = [c.label for c in configs]
    if len(set(labels)) != len(labels):
        raise WhisperFlowError("the same configuration is listed twice")
    out = args.out or Path("bench-results") / datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    plan = BenchPlan(
        entries, configs, args.pace, args.lower_bound, reference_model, manifest, args.peer_script, args.draws
    )
    log = ResultsLog(out / "results.jsonl", resume=args.resume)
    print(
        f"{len(entries)} files ({sum(e.duration_s for e in entries):.0f} s of audio), {len(configs)} configuration(s), "
        f"pace {args.pace}, {args.draws} draw(s); word end times from forced alignment or offline {reference_model}; "
        f"results in {out}",
        file=sys.stderr,
    )
    interrupted, failure = False, None
    try:
        run_plan(plan, log)
    except KeyboardInterrupt:
        interrupted = True
        print(
            f"\ninterrupted: reporting the finished results (continue with the same command and --out {out} --resume)",
            file=sys.stderr,
        )
    except WhisperFlowError as exc:
        failure = exc
    table, written = write_report(log.records, out)
    print(table)
    print("wrote " + ", ".join(str(p) for p in written), file=sys.stderr)
    if failure is not None:
        raise failure
    return 130 if interrupted else 0
