"""`whisperflow words-step-bench`: what the words-to-know bias adds to a decoder step.

A beam-5 step of the numpy decoder against a 10 s buffer's features: one forward call for five hypotheses, then
the logit rules and the beam's ranking, without a list and with lists of 12 and of 60 names (the 60 overfill the
words' budget, which keeps their first 24); and the bias alone (engine.decoder.word_bias) on the five hypotheses.
Best of --repeats each, the rules interleaved; printed as a Markdown table.
"""

from __future__ import annotations

import argparse

import numpy as np

from engine.audio.files import load_audio
from engine.decoder.beam_search import extend_beams
from engine.decoder.options import DecodeOptions, make_rules
from engine.decoder.session import make_session
from engine.model.whisper_model import load_model
from engine.runtime.paths import SAMPLE_AUDIO
from engine.stream.round import Transcriber
from engine.stream.vocabulary import build_vocabulary
from tools.decoder_bench import best_ms

NAMES = "Gutenberg, Schoeffer, Maintz, Sweynheim, Pannartz, Subiaco, psalters, missals, woodcutters, Strasburg, Basle"
LISTS = {"none": None, "12 names": NAMES + ", Lubeck", "60 names": ", ".join(f"Name{i}sohn" for i in range(60))}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="whisperflow words-step-bench", description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=50, help="timed steps per row; the best counts")
    args = p.parse_args(argv)
    loaded = load_model("tiny.en")
    tokenizer = loaded.tokenizer()
    encoded = Transcriber(loaded).encode(load_audio(SAMPLE_AUDIO)[: 16000 * 10])
    prompt = list(tokenizer.sot_sequence) + tokenizer.encode(" And so")
    beams = [prompt + tokenizer.encode(text) for text in (" the first", " the Sch", " a first", " the firm", " he")]
    session = make_session(loaded.model, encoded.features, "numpy")
    session.forward(np.array([prompt]))
    session.reorder([0] * 5)
    vocabularies = {label: build_vocabulary(words, tokenizer, "bias") for label, words in LISTS.items()}
    rules = {
        label: make_rules(
            loaded.model,
            tokenizer,
            len(prompt),
            DecodeOptions(beam_size=5, bias=vocabulary.bias if vocabulary else None),
            encoded.audio_steps,
        )
        for label, vocabulary in vocabularies.items()
    }

    def forward() -> np.ndarray:
        logits = np.asarray(session.forward(np.array([[b[-1]] for b in beams]))[:, -1], np.float32)
        session.truncate(session.length - 1)
        return logits

    def rank(label: str) -> None:
        scores = rules[label].scores(rules[label].logprobs(logits, beams), beams)
        extend_beams(beams, [0.0] * 5, scores, 5, tokenizer.eot)

    logits = forward()
    forward_ms = best_ms(forward, args.repeats)
    ranked = dict.fromkeys(LISTS, np.inf)
    for _ in range(args.repeats):  # interleaved, so that the machine's load falls on every row alike
        for label in LISTS:
            ranked[label] = min(ranked[label], best_ms(lambda label=label: rank(label), 1))
    lp = np.zeros((5, loaded.model.dims.n_vocab), np.float32)
    rows = [
        "| list | words kept | bias alone ms | rules and ranking ms | beam-5 step ms (forward + rules) | growth |",
        "|---|---|---|---|---|---|",
    ]
    base = forward_ms + ranked["none"]
    for label, vocabulary in vocabularies.items():
        alone = best_ms(lambda v=vocabulary: v.bias.add_to(lp, beams, len(prompt)), args.repeats) if vocabulary else 0
        kept = len(vocabulary.kept) if vocabulary else 0
        total = forward_ms + ranked[label]
        growth = 100 * (total / base - 1)
        rows.append(f"| {label} | {kept} | {alone:.3f} | {ranked[label]:.2f} | {total:.2f} | {growth:+.1f} % |")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
