"""The bench's `peer` row: its launcher swaps in faster-whisper on the CPU (int8) and a librosa loader without
editing the script; without the script or faster-whisper the row is skipped with a note in the table."""

import json
import textwrap
from pathlib import Path

from testdata import DATA

from engine.model.store import PACKAGED
from tools.bench.configs import parse_config
from tools.bench.peer import _words, peer_missing, run_peer
from tools.bench.report import markdown, summarize_run
from tools.bench.results import ResultsLog
from tools.bench.runner import _Run, _run_peer

# A stand-in for whisper_online.py with the two lines the launcher must change: the CUDA float16 model and
# librosa.load; it prints its output in whisper_online.py's format (emission ms, begin ms, end ms, text).
SCRIPT = textwrap.dedent("""
    import sys
    import librosa
    from faster_whisper import WhisperModel

    audio, _ = librosa.load(sys.argv[1], sr=16000)
    model = WhisperModel(sys.argv[sys.argv.index("--model_dir") + 1], device="cuda", compute_type="float16")
    assert model.model.device == "cpu" and model.model.compute_type.startswith("int8")
    segments, _ = model.transcribe(audio, language="en", beam_size=5)
    for s in segments:
        print("%1.4f %1.0f %1.0f %s" % (1234.5, s.start * 1000, s.end * 1000, s.text))
""")


def test_an_output_line_becomes_words_with_the_segment_times_spread_over_them():
    words = _words("4186.3606 0 1720 Takhle to je")
    assert [w["text"] for w in words] == ["Takhle", "to", "je"]
    assert words[0]["start"] == 0.0 and words[-1]["end"] == 1.72 and {w["emitted"] for w in words} == {4.186}


def test_the_launcher_runs_the_script_on_the_cpu_in_int8_without_librosa(tmp_path):
    script = tmp_path / "whisper_online.py"
    script.write_text(SCRIPT)
    assert peer_missing(script) is None
    record = run_peer(script, DATA / "LJ001-0009.wav", PACKAGED["tiny.en"].locate()[0], "unaware")
    text = " ".join(w["text"] for w in record["words"]).lower()
    assert "movable types" in text and all(w["emitted"] == 1.234 for w in record["words"])
    assert record["done"]["cpu_s"] > 0 and record["peak_rss_mb"] > 50  # the child's own figures (wait4)


def test_without_a_script_the_row_is_skipped_with_a_note(tmp_path):
    assert "no --peer-script" in peer_missing(None)
    assert "does not exist" in peer_missing(tmp_path / "nope.py")
    log = ResultsLog(tmp_path / "results.jsonl", resume=False)
    _run_peer(None, _Run(parse_config("peer"), "realtime", "measured", 1), [], {}, log)
    table = markdown(summarize_run(log.records))
    assert "Note: peer skipped: no --peer-script" in table
    assert json.loads(Path(tmp_path / "results.jsonl").read_text().splitlines()[-1])["type"] == "note"
