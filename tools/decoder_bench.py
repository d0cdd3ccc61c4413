"""`whisperflow decoder-bench`: the MLX decoder, the numpy decoder and CTranslate2 int8, side by side.

Step times decode against a 10 s buffer's features (unpadded, precomputed), best of ``--repeats``:
a greedy step and a beam-5 step after a short prompt, and a 30-token teacher-forced pass (one-pass
verification). Word timing is per round on the first short clip: DTW over the decoding's own attention
(both sessions record it). WER is offline greedy transcription of the corpus's
short clips; word-end error is the mean |end − forced-alignment end| on the MFA clips with TextGrids.
CTranslate2 (faster-whisper, int8, the packaged tiny.en) has no step API: its step time is a greedy
or beam-5 generate divided by the tokens it produced, its verify column is empty, and its word timing
is ctranslate2's own align().
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from engine.audio.files import load_audio
from engine.decoder.options import DecodeOptions
from engine.decoder.session import make_session
from engine.decoder.word_timing import decoded_alignment
from engine.encoder.input import Padding
from engine.model.store import PACKAGED
from engine.model.whisper_model import load_model
from engine.runtime.blas import loaded_blas
from engine.runtime.paths import SAMPLE_AUDIO
from engine.scoring.align import align
from engine.scoring.wer import corpus_wer, normalize_text
from engine.stream.offline import transcribe_audio
from engine.stream.round import Transcriber
from tools.bench.manifest import find_default_manifest, load_manifest, select
from tools.bench.textgrid import read_textgrid_words

COLUMNS = ("decoder", "greedy step ms", "beam-5 step ms", "verify 30 ms", "word timing ms", "WER %", "word-end err s")


def best_ms(run, repeats: int) -> float:
    run()
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t)
    return best * 1000


def step_times(loaded, features, backend: str, repeats: int) -> tuple[float, float, float]:
    """ms per greedy step, per beam-5 step, and for a 30-token teacher-forced pass."""
    tok = loaded.tokenizer()
    prompt = [list(tok.sot_sequence) + tok.encode(" And so")]

    def step(batch: int) -> float:
        session = make_session(loaded.model, features, backend)
        session.forward(np.array(prompt))
        session.reorder([0] * batch)
        return best_ms(lambda: np.asarray(session.forward(np.array([[262]] * batch))[:, -1], np.float32), repeats)

    session = make_session(loaded.model, features, backend)
    session.forward(np.array(prompt))
    kept = session.length

    def verify() -> None:
        """One teacher-forced pass over 30 tokens after the prompt, then back to the prompt."""
        np.asarray(session.forward(np.array([list(range(300, 330))]))[0], np.float32)
        session.truncate(kept)

    return step(1), step(5), best_ms(verify, repeats)


def word_end_error(words: list[tuple[str, float]], reference: list[tuple[str, float]]) -> list[float]:
    """|end difference| of each word that the edit-distance alignment matches exactly."""
    hyp = [normalize_text(w) for w, _ in words]
    ref = [normalize_text(w) for w, _ in reference]
    return [abs(words[p.hyp][1] - reference[p.ref][1]) for p in align(ref, hyp) if p.op == "hit" and ref[p.ref]]


def mlx_or_numpy_row(loaded, backend: str, features, clips, mfa, repeats: int, long) -> tuple[list[str], list[str]]:
    """The backend's row, and its transcripts of the clips and the long files (to compare backends)."""
    transcriber = Transcriber(loaded, decode=DecodeOptions(decoder=backend))
    steps = step_times(loaded, features, backend, repeats)
    encoded = transcriber.encode(clips[0][1])
    result = transcriber.decode(encoded.features, [], audio_steps=encoded.audio_steps)
    frames = encoded.n_samples // 160
    timing = best_ms(
        lambda: decoded_alignment(transcriber.tokenizer, result.tokens, result.token_probs, result.attention, frames),
        repeats,
    )
    texts = [" ".join(w.text for w in transcribe_audio(transcriber, audio)) for _, audio in clips + long]
    wer = _wer([(ref, text) for (ref, _), text in zip(clips, texts)])
    errors = [
        e
        for audio, grid in mfa
        for e in word_end_error([(w.text, w.end) for w in transcriber.transcribe(audio).words], grid)
    ]
    row = [
        f"{backend} ({'current' if backend == 'mlx' else 'float32, numpy OpenBLAS, vocabulary on 2 cores'})",
        *(f"{v:.1f}" for v in (*steps, timing)),
        f"{wer:.2f}",
        f"{np.mean(errors):.3f}",
    ]
    return row, texts


def ctranslate2_row(features_audio: np.ndarray, clips, mfa, repeats: int) -> list[str]:
    from faster_whisper import WhisperModel

    located = PACKAGED["tiny.en"].locate()
    if located is None:
        return ["CTranslate2 int8 (not installed)", *["–"] * 6]
    model = WhisperModel(str(located[0]), device="cpu", compute_type="int8", cpu_threads=2)
    tok = model.hf_tokenizer
    encoded = model.encode(model.feature_extractor(features_audio))
    sot = [tok.token_to_id("<|startoftranscript|>")]

    def per_step(beam: int) -> float:
        out = []
        ms = best_ms(lambda: out.append(model.model.generate(encoded, [sot], beam_size=beam, max_length=224)), repeats)
        return ms / max(1, len(out[-1][0].sequences_ids[0]) + 1)

    text = model.model.generate(encoded, [sot + [tok.token_to_id("<|notimestamps|>")]], beam_size=1)[0].sequences_ids[0]
    frames = len(features_audio) // 160
    timing = best_ms(
        lambda: model.model.align(encoded, sot + [tok.token_to_id("<|notimestamps|>")], [text], frames), repeats
    )

    def transcribe(audio, words=False):
        segments, _ = model.transcribe(
            audio, beam_size=1, language="en", condition_on_previous_text=False, word_timestamps=words, vad_filter=False
        )
        return list(segments)

    wer = _wer([(ref, " ".join(s.text for s in transcribe(audio))) for ref, audio in clips])
    errors = [
        e
        for audio, grid in mfa
        for e in word_end_error([(w.word, w.end) for s in transcribe(audio, True) for w in s.words], grid)
    ]
    return [
        "CTranslate2 int8 (faster-whisper)",
        f"{per_step(1):.1f}",
        f"{per_step(5):.1f}",
        "–",
        f"{timing:.1f}",
        f"{wer:.2f}",
        f"{np.mean(errors):.3f}",
    ]


def _wer(pairs: list[tuple[str, str]]) -> float:
    return 100 * corpus_wer([ref for ref, _ in pairs], [hyp for _, hyp in pairs])


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="whisperflow decoder-bench", description=__doc__.splitlines()[0])
    p.add_argument("--model", default="tiny.en")
    p.add_argument("--clips", type=int, default=51, help="short clips for WER (the corpus has 51)")
    p.add_argument("--repeats", type=int, default=10, help="timed runs per measurement; the best counts")
    p.add_argument("--manifest", type=Path, help="corpus manifest (default: shared/corpus/manifest.tsv above here)")
    p.add_argument("--no-ct2", action="store_true", help="leave out the CTranslate2 row")
    p.add_argument(
        "--long",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also compare the backends' transcripts of the long-form file",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    manifest = args.manifest or find_default_manifest()
    if manifest is None:
        raise SystemExit("no corpus manifest found: give --manifest shared/corpus/manifest.tsv")
    entries = load_manifest(manifest)
    short = select(entries, kinds=["short"])
    long = [(e.reference, load_audio(e.path)) for e in select(entries, kinds=["long_derived"])] if args.long else []
    clips = [(e.reference, load_audio(e.path)) for e in short[: args.clips]]
    mfa = [
        (load_audio(e.path), [(w.text, w.end) for w in read_textgrid_words(e.textgrid)]) for e in short if e.textgrid
    ]
    loaded = load_model(args.model)
    audio = np.tile(load_audio(SAMPLE_AUDIO), 4)[:160000]
    features = Transcriber(loaded, padding=Padding("none")).encode(audio).features
    print(
        f"decoder of {loaded.name}, {loaded_blas()}; {len(clips)} short clips, {len(mfa)} MFA clips; "
        f"best of {args.repeats}"
    )
    (mlx_row, mlx_texts), (numpy_row, numpy_texts) = (
        mlx_or_numpy_row(loaded, backend, features, clips, mfa, args.repeats, long) for backend in ("mlx", "numpy")
    )
    rows = [mlx_row, numpy_row]
    if not args.no_ct2:
        rows.append(ctranslate2_row(audio, clips, mfa, args.repeats))
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    names = [Path(e.path).name for e in short[: args.clips]] + ["long-form file"] * len(long)
    differ = [(n, a, b) for n, a, b in zip(names, mlx_texts, numpy_texts) if a != b]
    print(f"\ntranscripts (offline, greedy): {len(names) - len(differ)} of {len(names)} identical, mlx vs numpy")
    for name, a, b in differ:
        print(f"- {name}\n  mlx:   {a}\n  numpy: {b}")
    return 0
