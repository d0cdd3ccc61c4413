"""The final pass (engine/stream/finalize.py) decoded other ways over the same utterances: WER and its CPU cost.

Each file is streamed once with `flow` at the unaware pace while its finalizer's calls (audio, confirmed words,
pauses, length checks) are recorded; the recording is then replayed into finalizers whose final pass hears another
length of context, decodes at another beam or pads with the hush word. The utterances, their confirmed words and
the prompt rule are the same for every variant, so only the final pass differs. Offline whole-file WER (greedy, as
`whisperflow transcribe`) is the row to reach.

    whisperflow final-pass-study --kind narrowband sentences accented short --step 4 \\
        --variant ctx0=0:5:pad30 ctx20=20:5:pad30 beam1=20:1:pad30 hush=20:5:hush
"""

from __future__ import annotations

import argparse
import pickle
import time
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from pathlib import Path
from unittest import mock

from engine.runtime.startup import prepare


@dataclass
class Recording:
    """One stream's finalizer calls, its confirmed text and the offline text of the same file."""

    calls: list[tuple] = field(default_factory=list)
    confirmed: str = ""
    offline: str = ""


@dataclass(frozen=True)
class Variant:
    """A final pass: seconds of context before the utterance, beam size, padding (pad30 or hush), whether the
    final text already heard guides the decoding through the context (Finalizer's guided) and then through the
    utterance's confirmed words (confirmed), whether a decoding that loops ends at the loop (loop: `flow`'s
    loop stop, its loop_tokens) instead of being decoded again padded to 30 s, the smallest probability that makes
    a confirmed word sure (FinalPolicy's sure; sure=P, or every: every utterance decoded; None: `flow`'s final_sure),
    and the seconds of speech outside the confirmed words that make a sure utterance decoded all the same
    (FinalPolicy's uncovered_s; uncovered=S, inf: never; None: `flow`'s final_uncovered_s)."""

    name: str
    context_s: float
    beam: int
    padding: str
    guided: bool = False
    confirmed_guide: bool = False
    loop_stop: bool = False
    sure: float | None = None
    uncovered: float | None = None

    @classmethod
    def parse(cls, spec: str) -> Variant:
        name, _, rest = spec.partition("=")
        context, beam, padding, *flags = rest.split(":")
        loop = "loop" in flags
        sure = next((float(f[5:]) for f in flags if f.startswith("sure=")), float("inf") if "every" in flags else None)
        uncovered = next((float(f[10:]) for f in flags if f.startswith("uncovered=")), None)
        flags = [f for f in flags if f not in ("loop", "every") and not f.startswith(("sure=", "uncovered="))]
        if padding not in ("pad30", "hush") or flags not in ([], ["guided"], ["guided", "confirmed"]):
            raise SystemExit(
                f"--variant {spec}: padding is pad30 or hush, "
                "then optionally :guided[:confirmed][:loop][:every|:sure=P][:uncovered=S]"
            )
        return cls(name, float(context), int(beam), padding, bool(flags), len(flags) == 2, loop, sure, uncovered)


def record(loaded, path: Path) -> Recording:
    """Stream path with `flow` at the unaware pace, noting every call its finalizer gets."""
    import engine.stream.runner as runner
    from engine.audio.files import load_audio
    from engine.audio.sources import FileSource
    from engine.decoder.options import DecodeOptions
    from engine.stream.config import StreamConfig, build_processor
    from engine.stream.offline import transcribe_audio
    from engine.stream.round import Transcriber

    rec = Recording()

    class Recorded(runner.Finalizer):
        def add_audio(self, chunk):
            rec.calls.append(("audio", len(chunk)))
            super().add_audio(chunk)

        def add_confirmed(self, words):
            rec.calls.append(("confirmed", list(words)))
            super().add_confirmed(words)

        def pause(self):
            rec.calls.append(("pause",))
            super().pause()

        def check_length(self):
            rec.calls.append(("check",))
            super().check_length()

    processor, _ = build_processor(loaded, StreamConfig(policy="flow"))
    words = []
    with mock.patch.object(runner, "Finalizer", Recorded):
        runner.run_stream(processor, FileSource(path), pace="unaware", on_update=lambda u: words.extend(u.confirmed))
    processor.close()
    rec.confirmed = " ".join(w.text for w in words)
    offline = Transcriber(loaded, decode=DecodeOptions(beam_size=1))
    rec.offline = " ".join(w.text for w in transcribe_audio(offline, load_audio(path)))
    return rec


def final_transcriber(loaded, variant: Variant):
    from engine.decoder.options import DecodeOptions
    from engine.encoder.hush_word import hush_choice
    from engine.encoder.input import PAD30
    from engine.stream.policies import POLICIES
    from engine.stream.round import Transcriber

    padding = PAD30 if variant.padding == "pad30" else replace(hush_choice(loaded).padding, min_seconds=0.0)
    decode = DecodeOptions(
        beam_size=variant.beam,
        beam_pruning=variant.guided,
        verify_reference=variant.guided,
        loop_tokens=POLICIES["flow"]["loop_tokens"] if variant.loop_stop else 0,
    )
    return Transcriber(loaded, padding=padding, decode=decode)


def replay(loaded, path: Path, rec: Recording, variant: Variant) -> tuple[str, float, dict[str, float]]:
    """The final text of the recorded stream with this variant's final pass, that pass's CPU seconds, and the
    seconds (wall) its encoder, decoder and word timing took (a pass that reused a round's encoder output would not
    spend the encoder's)."""
    from engine.audio.files import load_audio
    from engine.audio.vad import SpeechDetector
    from engine.session.final_text import FinalText
    from engine.stream.finalize import Finalizer, FinalPolicy
    from engine.stream.policies import POLICIES

    def now(job) -> Future:
        future = Future()
        future.set_result(job())
        return future

    audio = load_audio(path)
    transcriber = final_transcriber(loaded, variant)
    decode = transcriber.transcribe
    spent = {"encoder": 0.0, "decoder": 0.0, "word timing": 0.0}

    def timed(*args, **kwargs):
        result = decode(*args, **kwargs)
        for part, seconds in zip(spent, (result.encode_s, result.decode_s, result.align_s)):
            spent[part] += seconds
        return result

    transcriber.transcribe = timed
    detector = SpeechDetector()
    finalizer = Finalizer(
        transcriber,
        now,
        lambda: 0.0,
        context_s=variant.context_s,
        guided=variant.guided,
        confirmed_guide=variant.confirmed_guide,
        policy=FinalPolicy(
            POLICIES["flow"]["final_sure"] if variant.sure is None else variant.sure,
            POLICIES["flow"]["final_uncovered_s"] if variant.uncovered is None else variant.uncovered,
        ),
        detector=detector,
    )
    text, position, finals = FinalText(), 0, []
    cpu = time.process_time()
    for call in rec.calls:
        if call[0] == "audio":
            heard = time.process_time()  # the stream's detector runs anyway: not the final pass's cost
            detector.accept(audio[position : position + call[1]])
            cpu += time.process_time() - heard
            finalizer.add_audio(audio[position : position + call[1]])
            position += call[1]
        elif call[0] == "confirmed":
            text.confirm(call[1])
            finalizer.add_confirmed(call[1])
        else:
            finalizer.pause() if call[0] == "pause" else finalizer.check_length()
            finals += finalizer.ready()
    finals += finalizer.finish()
    cpu = time.process_time() - cpu
    for final in finals:
        text.apply(final)
    return " ".join(w.text for w in text.words), cpu, spent


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="whisperflow final-pass-study", description=__doc__.split("\n\n")[0])
    p.add_argument("--manifest", default="../shared/corpus/manifest.tsv")
    p.add_argument("--kind", nargs="+", default=["narrowband", "sentences", "accented", "short", "long_derived"])
    p.add_argument("--step", type=int, default=1, help="every STEP-th file of each kind")
    p.add_argument("--first", type=int, default=0, help="starting from each kind's FIRST-th file (0: its first)")
    p.add_argument(
        "--variant",
        nargs="+",
        default=["ctx20=20:5:pad30"],
        metavar="NAME=CONTEXT_S:BEAM:PADDING[:guided[:confirmed]][:loop][:every|:sure=P][:uncovered=S]",
    )
    p.add_argument("--out", default="bench-results/final-pass-study", help="recordings are kept here and reused")
    args = p.parse_args(argv)
    prepare()
    from engine.model.whisper_model import load_model
    from engine.scoring.wer import WerCounts, wer_counts
    from tools.bench.manifest import load_manifest

    variants = [Variant.parse(v) for v in args.variant]
    entries = [
        e
        for kind in args.kind
        for e in [e for e in load_manifest(args.manifest) if e.kind == kind][args.first :: args.step]
    ]
    loaded = load_model("tiny.en")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    totals: dict[tuple[str, str], WerCounts] = {}
    cpu: dict[str, float] = {}
    parts: dict[str, dict[str, float]] = {}
    audio_s = 0.0
    for entry in entries:
        cached = out / (Path(entry.path).name + ".pkl")
        rec = pickle.loads(cached.read_bytes()) if cached.exists() else record(loaded, entry.path)
        cached.write_bytes(pickle.dumps(rec))
        texts = {"confirmed": rec.confirmed, "offline": rec.offline}
        for v in variants:
            texts[v.name], spent, split = replay(loaded, entry.path, rec, v)
            cpu[v.name] = cpu.get(v.name, 0.0) + spent
            totals_of = parts.setdefault(v.name, {})
            for part, seconds in split.items():
                totals_of[part] = totals_of.get(part, 0.0) + seconds
        audio_s += entry.duration_s
        for name, text in texts.items():
            counts = wer_counts(entry.reference, text)
            for group in (entry.kind, "pooled"):
                totals[(group, name)] = totals.get((group, name), WerCounts(0, 0, 0, 0)) + counts
        errors = (f"{n} {wer_counts(entry.reference, t).errors}" for n, t in texts.items())
        print(entry.kind, Path(entry.path).name, *errors, flush=True)
    names = ["confirmed", "offline", *(v.name for v in variants)]
    print("\n| kind | " + " | ".join(names) + " |\n|---|" + "---|" * len(names))
    for group in dict.fromkeys(g for g, _ in totals):
        print(f"| {group} | " + " | ".join(f"{100 * totals[(group, n)].wer:.1f} %" for n in names) + " |")
    print(
        "| final pass CPU s per audio s | – | – | "
        + " | ".join(f"{cpu[v.name] / audio_s:.3f}" for v in variants)
        + " |"
    )
    for part in ("encoder", "decoder", "word timing"):
        row = " | ".join(f"{parts[v.name][part] / audio_s:.3f}" for v in variants)
        print(f"| its {part}, s (wall) per audio s | – | – | {row} |")
    return 0
