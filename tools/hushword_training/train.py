"""Train a hush word: 8000 raw samples appended to the audio so that Whisper stops where the speech does.

    python -m tools.hushword_training.train --model tiny.en [--epochs 6] [--lr 1e-3] [--fresh]
    python -m tools.hushword_training.train --model tiny.en --shape stream --init-from tiny.en

``--shape utterance`` trains on whole utterances; ``--shape stream`` on buffers shaped like the
stream's (tools/hushword_training/stream_data.py), with some whole utterances mixed in.

The model stays frozen. The loss is teacher-forced cross-entropy of the target tokens
given the audio + hush word, with gradients through mlx-whisper's log-mel, encoder and
decoder (MLX autodiff), batch 1, Adam on the samples. After each epoch the validation
loss is measured and the hush word kept; the shipped one averages the best few epochs.
Progress is checkpointed in the user cache dir, so a rerun resumes where it stopped.
"""

# ruff: noqa: E402  (the start-up step comes before the imports that load MLX)
from __future__ import annotations

import argparse
import datetime
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from engine.runtime.startup import prepare

prepare()  # first: OpenBLAS before MLX, which the imports below load (this module also runs on its own)

import mlx.core as mx
import mlx.nn as nn
import numpy as np
from mlx_whisper.audio import N_FRAMES, log_mel_spectrogram

from engine.audio.files import SAMPLE_RATE
from engine.encoder.hush_word import hush_dir
from engine.encoder.input import PAD30, Padding
from engine.model.whisper_model import LoadedModel, load_model
from engine.runtime.paths import cache_dir
from tools.hushword_training import data, stream_data

HUSH_SAMPLES = 8000
HUSH_DIR = hush_dir()
VALIDATION_BUFFERS = 24  # stream-shaped validation buffers (shape "stream")


@dataclass(frozen=True)
class Config:
    """Everything that decides a run; a checkpoint resumes only under the same config
    (epochs and keep_best may change: more epochs go on training, fewer stop it)."""

    model: str
    weights_sha256: str
    epochs: int = 6
    lr: float = 1e-3
    init_std: float = 0.01
    keep_best: int = 3
    seed: int = 0
    max_seconds: float = 8.0
    tts_utterances: int = 150
    validation_clips: int = 16
    shape: str = "utterance"  # or "stream": buffers cut from joined utterances, with prompts
    stream_buffers: int = 160  # per epoch, with shape "stream"
    whole_utterances: int = 40  # whole utterances mixed into a "stream" epoch
    init_from: str = ""  # start from this model's shipped hush word instead of random samples


@dataclass
class State:
    """Where training is: the hush word, Adam's moments, and the per-epoch results so far."""

    hush: np.ndarray
    m: np.ndarray
    v: np.ndarray
    step: int = 0
    epoch: int = 0
    index: int = 0
    epoch_hushes: list[np.ndarray] | None = None
    epoch_losses: list[float] | None = None
    train_losses: list[float] | None = None
    epoch_seconds: list[float] | None = None


def checkpoint_path(config: Config) -> Path:
    return cache_dir() / "hushwords" / f"train-{config.model}-{config.weights_sha256[:12]}.npz"


def save_checkpoint(path: Path, config: Config, state: State) -> None:
    """Write atomically, so an interruption mid-write leaves the previous checkpoint."""
    tmp = path.with_suffix(".tmp.npz")
    np.savez(
        tmp,
        config=json.dumps(asdict(config)),
        hush=state.hush,
        m=state.m,
        v=state.v,
        counters=np.array([state.step, state.epoch, state.index]),
        epoch_hushes=np.array(state.epoch_hushes or np.zeros((0, HUSH_SAMPLES)), np.float32),
        epoch_losses=np.array(state.epoch_losses or [], np.float64),
        train_losses=np.array(state.train_losses or [], np.float64),
        epoch_seconds=np.array(state.epoch_seconds or [], np.float64),
    )
    tmp.replace(path)


def _trajectory(config: dict) -> dict:
    """The config fields that decide the training trajectory."""
    return {k: v for k, v in config.items() if k not in ("epochs", "keep_best")}


def load_checkpoint(path: Path, config: Config) -> State | None:
    """The saved state if there is one for this config."""
    if not path.exists():
        return None
    with np.load(path) as f:
        if _trajectory(json.loads(str(f["config"]))) != _trajectory(asdict(config)):
            return None
        step, epoch, index = (int(x) for x in f["counters"])
        return State(
            f["hush"],
            f["m"],
            f["v"],
            step,
            epoch,
            index,
            list(f["epoch_hushes"]),
            list(f["epoch_losses"]),
            list(f["train_losses"]),
            list(f["epoch_seconds"]) if "epoch_seconds" in f else [],
        )


def make_loss(loaded: LoadedModel):
    """loss(hush, audio, tokens, context) -> mean cross-entropy of the tokens after the first
    ``context`` (the prompt and SOT sequence)."""
    model = loaded.model
    n_mels = model.dims.n_mels

    def loss(hush: mx.array, audio: mx.array, tokens: mx.array, context: int) -> mx.array:
        mel = log_mel_spectrogram(mx.concatenate([audio, hush]), n_mels)
        n = min(N_FRAMES, mel.shape[0] - mel.shape[0] % 2)
        features = model.encoder(mel[:n][None])
        logits = model.decoder(tokens[None, :-1], features)[0][0]
        return nn.losses.cross_entropy(logits[context - 1 :], tokens[context:], reduction="mean")

    return loss


def validation_loss(loss, hush: np.ndarray, examples: list[data.Example]) -> float:
    h = mx.array(hush)
    values = []
    for ex in examples:
        value = loss(h, mx.array(ex.audio), mx.array(ex.target), ex.context)
        mx.eval(value)
        values.append(value.item())
    return float(np.mean(values))


def adam_step(state: State, grad: np.ndarray, lr: float, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> None:
    """One Adam update of the samples, kept inside [-1, 1] like any audio."""
    state.step += 1
    state.m = b1 * state.m + (1 - b1) * grad
    state.v = b2 * state.v + (1 - b2) * grad**2
    m_hat = state.m / (1 - b1**state.step)
    v_hat = state.v / (1 - b2**state.step)
    state.hush = np.clip(state.hush - lr * m_hat / (np.sqrt(v_hat) + eps), -1.0, 1.0).astype(np.float32)


def utterance_examples(loaded: LoadedModel, config: Config, log) -> list[data.Example]:
    """Telephone prompts (real speaker) plus the same texts in espeak-ng voices."""
    tokenizer = loaded.tokenizer()
    clips = [c for c in data.clips_of(data.TRAIN_KINDS) if c.duration <= config.max_seconds]
    real = data.reference_examples(tokenizer, clips)
    texts = sorted({c.reference for c in clips})
    rng = np.random.default_rng(config.seed)
    chosen = [texts[i] for i in rng.permutation(len(texts))[: config.tts_utterances]]
    tts = [ex for ex in data.tts_examples(tokenizer, chosen, config.seed) if ex.clip.duration <= config.max_seconds]
    log(f"training utterances: {len(real)} telephone prompts (one speaker), {len(tts)} espeak-ng utterances")
    return real + tts


def training_examples(loaded: LoadedModel, config: Config, log) -> list[data.Example]:
    """Whole utterances, or (shape "stream") buffers cut from them joined, plus a few whole ones."""
    whole = utterance_examples(loaded, config, log)
    if config.shape == "utterance":
        return whole
    pick = np.random.default_rng(config.seed + 2).permutation(len(whole))[: config.whole_utterances]
    stream = stream_data.stream_examples(
        loaded,
        [(ex.audio, ex.clip.reference) for ex in whole],
        config.stream_buffers,
        config.seed,
        data.labels_path(loaded.name + "-stream", loaded.weights_sha256),
        "train",
        log,
    )
    log(f"training examples: {len(stream)} stream-shaped buffers, {len(pick)} whole utterances")
    return stream + [whole[i] for i in pick]


def validation_examples(loaded: LoadedModel, config: Config, log) -> list[data.Example]:
    """Montreal Forced Aligner clips (other speakers); with shape "stream" also buffers cut from them joined."""
    clips = data.clips_of(data.VALIDATION_KINDS)[: config.validation_clips]
    examples = data.build_examples(loaded, clips, progress=log)
    log(f"validation examples: {len(examples)} Montreal Forced Aligner clips (other speakers)")
    if config.shape == "stream":
        joined = [(data.load_clip(c), c.reference) for c in data.clips_of(data.VALIDATION_KINDS)]
        examples += stream_data.stream_examples(
            loaded,
            joined,
            VALIDATION_BUFFERS,
            config.seed + 1,
            data.labels_path(loaded.name + "-stream-validation", loaded.weights_sha256),
            "validation",
            log,
        )
    return examples


def initial_hush(loaded: LoadedModel, config: Config) -> np.ndarray:
    """Random samples, or a shipped hush word (``init_from``: any model's; it is only audio)."""
    if config.init_from:
        with np.load(HUSH_DIR / f"{config.init_from}.npz") as f:
            return np.asarray(f["samples"], np.float32)
    return (np.random.default_rng(config.seed).standard_normal(HUSH_SAMPLES) * config.init_std).astype(np.float32)


def train(
    loaded: LoadedModel, config: Config, fresh: bool = False, log=print
) -> tuple[State, list[data.Example], list[data.Example]]:
    """Run (or resume) training until every epoch is done; return the final state and the data."""
    train_set = training_examples(loaded, config, log)
    val_set = validation_examples(loaded, config, log)
    path = checkpoint_path(config)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = None if fresh else load_checkpoint(path, config)
    if state is None:
        state = State(
            initial_hush(loaded, config),
            np.zeros(HUSH_SAMPLES),
            np.zeros(HUSH_SAMPLES),
            epoch_hushes=[],
            epoch_losses=[],
            train_losses=[],
            epoch_seconds=[],
        )
        start = (
            f"{config.init_from}'s shipped hush word" if config.init_from else f"random samples (std {config.init_std})"
        )
        log(f"starting from {start}; checkpoint {path}")
        if config.init_from:
            state.epoch_losses.append(validation_loss(make_loss(loaded), state.hush, val_set))
            state.epoch_hushes.append(state.hush.copy())
            state.train_losses.append(float("nan"))
            state.epoch_seconds.append(0.0)
            save_checkpoint(path, config, state)
            log(f"validation loss before training: {state.epoch_losses[0]:.4f}")
    else:
        log(f"resuming at epoch {state.epoch + 1} example {state.index} (step {state.step}) from {path}")
    loss = make_loss(loaded)
    value_and_grad = mx.value_and_grad(loss)
    gains = np.random.default_rng(config.seed + 1)
    while state.epoch < config.epochs:
        order = np.random.default_rng(config.seed + state.epoch).permutation(len(train_set))
        t0, done, running = time.perf_counter(), 0, []
        for i in range(state.index, len(order)):
            ex = train_set[order[i]]
            audio = ex.audio * np.float32(gains.uniform(0.5, 1.5))
            value, grad = value_and_grad(mx.array(state.hush), mx.array(audio), mx.array(ex.target), ex.context)
            mx.eval(value, grad)
            adam_step(state, np.array(grad, np.float64), config.lr)
            state.index, done = i + 1, done + 1
            running.append(value.item())
            if state.index % 10 == 0 or state.index == len(order):
                per = (time.perf_counter() - t0) / done
                log(
                    f"epoch {state.epoch + 1}/{config.epochs} example {state.index}/{len(order)} step {state.step} "
                    f"loss {np.mean(running[-10:]):.3f} {per:.2f} s/step, "
                    f"epoch ends in {per * (len(order) - state.index) / 60:.1f} min"
                )
            if state.index % 25 == 0:
                save_checkpoint(path, config, state)
        val = validation_loss(loss, state.hush, val_set)
        state.epoch_hushes.append(state.hush.copy())
        state.epoch_losses.append(val)
        state.train_losses.append(float(np.mean(running)) if running else float("nan"))
        state.epoch_seconds.append(time.perf_counter() - t0)  # this run's share of the epoch
        state.epoch, state.index = state.epoch + 1, 0
        save_checkpoint(path, config, state)
        log(f"epoch {state.epoch} done: validation loss {val:.4f}")
    return state, train_set, val_set


def best_average(state: State, keep: int, first: int = 1) -> tuple[np.ndarray, list[int]]:
    """The mean of the hush words of the ``keep`` epochs with the lowest validation loss, and their
    numbers (the first entry is epoch ``first``: 0 when it is the starting word)."""
    best = sorted(range(len(state.epoch_losses)), key=lambda e: state.epoch_losses[e])[:keep]
    return np.mean([state.epoch_hushes[e] for e in best], axis=0).astype(np.float32), [e + first for e in sorted(best)]


def validation_wer(loaded: LoadedModel, padding: Padding, examples: list[data.Example]) -> float:
    """Word error rate against the references, decoding each clip with the given padding."""
    from engine.scoring.wer import corpus_wer
    from engine.stream.round import Transcriber

    transcriber = Transcriber(loaded, padding=padding, word_timestamps=False)
    hyps = [" ".join(s.text for s in transcriber.transcribe(ex.audio).segments) for ex in examples]
    return corpus_wer([ex.clip.reference for ex in examples], hyps)


def ship(
    loaded: LoadedModel, config: Config, state: State, train_set, val_set, log=print, out_dir: Path = HUSH_DIR
) -> Path:
    """Average the best epochs, measure validation WER, write <model>.npz and <model>.json."""
    hush, epochs = best_average(state, config.keep_best, 0 if config.init_from else 1)
    val_loss = validation_loss(make_loss(loaded), hush, val_set)
    whole_clips = [ex for ex in val_set if ex.clip.kind in data.VALIDATION_KINDS]
    wer_hush = validation_wer(loaded, Padding("hush", HUSH_SAMPLES / SAMPLE_RATE, hush), whole_clips)
    wer_pad30 = validation_wer(loaded, PAD30, whole_clips)
    stream_target = (
        "buffers of 1-20 s cut from joined utterances with the text before them as the prompt; target = the "
        "padded model's own output (greedy) up to the last word ending 0.1 s before the cut, closed by its "
        "end timestamp and EOT; whole utterances as "
    )
    meta = {
        "model": config.model,
        "weights_sha256": config.weights_sha256,
        "samples": HUSH_SAMPLES,
        "sample_rate": SAMPLE_RATE,
        "seconds": HUSH_SAMPLES / SAMPLE_RATE,
        "created": datetime.date.today().isoformat(),
        "shape": config.shape,
        "init_from": config.init_from or f"random samples (std {config.init_std})",
        "target": (stream_target if config.shape == "stream" else "")
        + "[SOT, <|0.00|>, transcript, <|speech end|>, EOT] (timestamps on, as the stream decodes)",
        "training_data": {
            "telephone_prompts": sum(ex.clip.kind == "ivr" for ex in train_set),
            "espeak_ng_utterances": sum(ex.clip.kind == "tts" for ex in train_set),
            "stream_buffers_per_epoch": sum(ex.clip.kind == "train-stream" for ex in train_set),
            "sources": "shared corpus 'ivr' (Asterisk core sounds, Allison Smith, CC BY-SA 3.0, 8 kHz) "
            "and the same texts "
            "spoken by espeak-ng voices " + ", ".join(data.TTS_VOICES),
            "validation": f"{len(whole_clips)} shared corpus 'odd' clips (Montreal Forced Aligner test clips, MIT)"
            + (
                f" and {len(val_set) - len(whole_clips)} stream-shaped buffers cut from all of them joined"
                if len(val_set) > len(whole_clips)
                else ""
            )
            + f"; targets = {config.model}'s own output padded to 30 s",
        },
        "steps": state.step,
        "epochs": config.epochs,
        "averaged_epochs": epochs,
        "validation_loss_per_epoch": [round(x, 4) for x in state.epoch_losses],
        "train_loss_per_epoch": [None if np.isnan(x) else round(x, 4) for x in state.train_losses],
        "minutes_per_epoch": [round(x / 60, 1) for x in state.epoch_seconds],
        "validation_loss": round(val_loss, 4),
        "validation_wer": round(wer_hush, 4),
        "validation_wer_pad30": round(wer_pad30, 4),
        "config": asdict(config),
    }
    np.savez(out_dir / f"{config.model}.npz", samples=hush)
    path = out_dir / f"{config.model}.json"
    path.write_text(json.dumps(meta, indent=2) + "\n")
    log(
        f"shipped {out_dir / (config.model + '.npz')}: averaged epochs {epochs}, validation WER {wer_hush:.3f} "
        f"(pad to 30 s: {wer_pad30:.3f})"
    )
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.hushword_training.train", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--model", default="tiny.en")
    parser.add_argument("--epochs", type=int, default=Config.epochs)
    parser.add_argument("--lr", type=float, default=Config.lr)
    parser.add_argument("--keep-best", type=int, default=Config.keep_best)
    parser.add_argument("--seed", type=int, default=Config.seed)
    parser.add_argument("--max-seconds", type=float, default=Config.max_seconds, help="longest training clip")
    parser.add_argument("--tts", type=int, default=Config.tts_utterances, help="espeak-ng utterances to add")
    parser.add_argument("--validation-clips", type=int, default=Config.validation_clips)
    parser.add_argument(
        "--shape",
        choices=("utterance", "stream"),
        default=Config.shape,
        help="train on whole utterances or on stream-shaped buffers",
    )
    parser.add_argument("--stream-buffers", type=int, default=Config.stream_buffers)
    parser.add_argument(
        "--whole-utterances",
        type=int,
        default=Config.whole_utterances,
        help="whole utterances mixed into a stream-shaped epoch",
    )
    parser.add_argument("--init-from", default="", help="start from this model's shipped hush word")
    parser.add_argument("--fresh", action="store_true", help="ignore any checkpoint and start again")
    parser.add_argument("--out", type=Path, default=HUSH_DIR, help="where to write <model>.npz/.json")
    args = parser.parse_args(argv)

    def log(msg: str) -> None:
        print(msg, flush=True)

    loaded = load_model(args.model)
    config = Config(
        args.model,
        loaded.weights_sha256,
        args.epochs,
        args.lr,
        Config.init_std,
        args.keep_best,
        args.seed,
        args.max_seconds,
        args.tts,
        args.validation_clips,
        args.shape,
        args.stream_buffers,
        args.whole_utterances,
        args.init_from,
    )
    state, train_set, val_set = train(loaded, config, args.fresh, log)
    ship(loaded, config, state, train_set, val_set, log, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
