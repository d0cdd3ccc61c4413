"""A really full disk: a 256 KiB tmpfs mounted in a private mount namespace (unshare), filled to the last byte.

The journal must raise DiskFullError, keep the unwritten words in memory and save them once space is freed;
exports must raise DiskFullError, leave the existing file and the in-memory transcript untouched.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from testdata import REPO

CHILD = """
import copy, errno, json, sys
from pathlib import Path
from engine.errors import DiskFullError
from engine.session.exporters import export
from engine.session.journal import SessionJournal, load_session
from engine.session.transcript import SessionMeta, Transcript
from engine.session.words import Word

root = Path(sys.argv[1])
words = [Word(f"word{i:04d}", i * 0.5, i * 0.5 + 0.4, 0.5) for i in range(300)]
meta = SessionMeta.new("Disk test", "tiny.en")
transcript = Transcript.from_meta(meta, words)
before = copy.deepcopy(transcript)
out = {}

journal = SessionJournal.create(root / "sessions", meta)
journal.append(words[:50])
export(transcript.select_words(0, 3), root / "keep.txt")
with open(root / "filler", "wb", buffering=0) as f:  # take every byte that is left
    try:
        while True:
            f.write(b"\\0" * 4096)
    except OSError as e:
        assert e.errno == errno.ENOSPC
    try:
        while True:
            f.write(b"\\0")
    except OSError as e:
        assert e.errno == errno.ENOSPC

def attempt(action):
    try:
        action()
        return "ok"
    except DiskFullError as e:
        return str(e)

out["append_full"] = attempt(lambda: journal.append(words[50:150]))
out["pending_full"] = journal.pending_count
out["append_full_again"] = attempt(lambda: journal.append(words[150:160]))
out["pending_full_again"] = journal.pending_count
out["export_new"] = attempt(lambda: export(transcript, root / "all.srt"))
out["export_over"] = attempt(lambda: export(transcript, root / "keep.txt"))
out["keep_txt"] = (root / "keep.txt").read_text()
out["files_when_full"] = sorted(p.name for p in root.iterdir())
out["transcript_untouched"] = transcript == before

(root / "filler").unlink()
journal.append(words[160:200])
out["pending_after"] = journal.pending_count
journal.close()
loaded = load_session(root / "sessions", meta.session_id).words
out["loaded_equal"] = loaded == [Word(w.text, round(w.start, 3), round(w.end, 3), w.probability) for w in words[:200]]
out["export_after"] = attempt(lambda: export(transcript, root / "all.srt"))
print(json.dumps(out))
"""


def run_on_full_disk(tmp_path: Path) -> dict:
    mount = tmp_path / "small"
    mount.mkdir()
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        pytest.skip("needs Linux unshare to mount a small private tmpfs")
    probe = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", f"mount -t tmpfs -o size=256k tmpfs '{mount}'"],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        pytest.skip(f"cannot mount a private tmpfs here: {probe.stderr.strip()}")
    script = f"mount -t tmpfs -o size=256k tmpfs '{mount}' && exec \"$0\" -c \"$1\" '{mount}'"
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script, sys.executable, CHILD],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_full_disk_keeps_words_and_transcript(tmp_path):
    out = run_on_full_disk(tmp_path)
    assert "disk" in out["append_full"] and "full" in out["append_full"]
    assert "100 confirmed words are kept in memory" in out["append_full"]
    assert out["pending_full"] == 100
    assert "110 confirmed words" in out["append_full_again"] and out["pending_full_again"] == 110
    assert "all.srt" in out["export_new"] and "full" in out["export_new"]
    assert "keep.txt" in out["export_over"] and "full" in out["export_over"]
    assert out["keep_txt"] == "0:00  Word0000 word0001 word0002\n"  # the old file survived the failed overwrite
    assert out["files_when_full"] == ["filler", "keep.txt", "sessions"]  # no partial or temporary files
    assert out["transcript_untouched"]
    assert out["pending_after"] == 0
    assert out["loaded_equal"]  # every word, in order, nothing torn by the failed writes
    assert out["export_after"] == "ok"
