"""`--selftest`: transcribe the bundled sample headless with tiny.en; pass only when the words are right.

Support staff and CI run it on an installed bundle (`WhisperFlow --selftest`). It needs no display, no audio
device and no network: the sample ships in assets/ and tiny.en ships with the install (converted into the user
cache on the first run). Exit codes: 0 the words are right, 1 the words are wrong, 2 it could not run.
"""

from __future__ import annotations

import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from engine.errors import WhisperFlowError
from engine.runtime.paths import SAMPLE_AUDIO as SAMPLE

# What the sample says (LJ Speech LJ001-0001, as in assets/ATTRIBUTION.md).
SAMPLE_TEXT = (
    "Printing, in the only sense with which we are at present concerned, differs from most if not from "
    "all the arts and crafts represented in the Exhibition"
)
MODEL = "tiny.en"
MAX_WER = 0.2


@dataclass(frozen=True)
class SelftestResult:
    """What the self-test heard, how far it is from the known text, and where it ran."""

    heard: str
    wer: float
    device: str
    blas: str
    seconds: float

    @property
    def passed(self) -> bool:
        return self.wer <= MAX_WER


def run_selftest(sample: Path = SAMPLE, model: str = MODEL) -> SelftestResult:
    """Load the model, transcribe the sample whole and score it against SAMPLE_TEXT."""
    import mlx.core as mx

    from engine.audio.files import load_audio
    from engine.model.whisper_model import load_model
    from engine.runtime.blas import loaded_blas
    from engine.scoring.wer import wer_counts
    from engine.stream.offline import transcribe_audio
    from engine.stream.round import Transcriber

    started = time.perf_counter()
    audio = load_audio(sample)
    transcriber = Transcriber(load_model(model))
    heard = " ".join(w.text for w in transcribe_audio(transcriber, audio))
    return SelftestResult(
        heard,
        wer_counts(SAMPLE_TEXT, heard).wer,
        str(mx.default_device()),
        loaded_blas(),
        time.perf_counter() - started,
    )


def main() -> int:
    """Print what the self-test heard and its verdict; the exit code says pass (0), wrong words (1) or error (2)."""
    print(f"selftest: transcribing {SAMPLE} with {MODEL}", flush=True)
    try:
        result = run_selftest()
    except WhisperFlowError as exc:
        print(f"selftest: error: {exc}", file=sys.stderr)
        return 2
    except Exception:  # a broken install (missing module or library): say so, distinct from wrong words
        traceback.print_exc()
        print("selftest: error: the install is broken (see above)", file=sys.stderr)
        return 2
    print(f"heard:    {result.heard}")
    print(f"expected: {SAMPLE_TEXT}")
    print(f"WER {result.wer:.3f} (pass at <= {MAX_WER}); {result.seconds:.1f} s on {result.device}, BLAS {result.blas}")
    print("selftest: PASS" if result.passed else "selftest: FAIL (the words are wrong)")
    return 0 if result.passed else 1


if __name__ == "__main__":
    sys.exit(main())
