"""Where the tests' files are: the repository, and the small real clips in tests/data (see its ATTRIBUTION.md)."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
ACOUSTIC_FIRST_SENTENCE_S = (
    3.72  # acoustic_corpus_10s.wav's first sentence: "this is the acoustic corpus i'm talking pretty fast here"
)


def clip_start(name: str, seconds: float, folder: Path) -> Path:
    """The first seconds of DATA/name, written as a 16 kHz WAV into folder (for tests that need only its start)."""
    import soundfile as sf

    from engine.audio.files import SAMPLE_RATE, load_audio

    path = folder / f"{Path(name).stem}_first_{seconds:g}s.wav"
    sf.write(path, load_audio(DATA / name)[: int(seconds * SAMPLE_RATE)], SAMPLE_RATE)
    return path
