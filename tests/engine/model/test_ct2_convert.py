"""The MLX conversion transcribes what the CTranslate2 original transcribes (faster-whisper)."""

from testdata import DATA
from whisper_normalizer.english import EnglishTextNormalizer

from engine.audio.files import load_audio
from engine.model.store import PACKAGED
from engine.stream.round import Transcriber

CLIP = DATA / "LJ001-0009.wav"


def test_mlx_conversion_transcribes_like_ctranslate2(tiny_model):
    from faster_whisper import WhisperModel

    audio = load_audio(CLIP)
    ct2 = WhisperModel(str(PACKAGED["tiny.en"].locate()[0]), device="cpu", compute_type="float32", cpu_threads=2)
    segments, _ = ct2.transcribe(audio, beam_size=1, temperature=0.0, condition_on_previous_text=False, language="en")
    reference = " ".join(s.text for s in segments)
    ours = " ".join(s.text for s in Transcriber(tiny_model).transcribe(audio).segments)
    normalize = EnglishTextNormalizer()
    assert normalize(ours) == normalize(reference)
