"""The model store on a read-only cache, a full disk and damaged manifests: a clear error, never a traceback."""

import json
import random
import shutil
import subprocess
import sys

import pytest
from testdata import DATA, REPO

from engine.errors import DiskFullError, ModelError, WhisperFlowError
from engine.model import store

needs_namespaces = pytest.mark.skipif(
    shutil.which("unshare") is None or subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode != 0,
    reason="needs user and mount namespaces (unshare -rm) for a real tmpfs",
)

IN_NAMESPACE = """
set -e
mount -t tmpfs -o size={size} tmpfs "$1"
{extra}
WHISPERFLOW_CACHE_DIR="$1/cache" "$2" -m cli.main stream "$3" --pace fast --beam 1
"""


def run_with_cache(tmp_path, size: str, extra: str = "") -> subprocess.CompletedProcess:
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    script = IN_NAMESPACE.format(size=size, extra=extra)
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c", script, "sh", str(mnt), sys.executable, str(DATA / "LJ001-0008.wav")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )


@needs_namespaces
def test_a_read_only_cache_is_a_clear_error_naming_the_folder(tmp_path):
    run = run_with_cache(tmp_path, "1m", extra='mount -o remount,ro "$1"')
    assert run.returncode == 2, run.stderr
    assert "error: cannot write the model cache" in run.stderr and "Read-only file system" in run.stderr, run.stderr
    assert "WHISPERFLOW_CACHE_DIR" in run.stderr and "Traceback" not in run.stderr


@needs_namespaces
def test_a_full_cache_disk_names_the_folder_and_the_space_needed(tmp_path):
    run = run_with_cache(tmp_path, "20m")
    assert run.returncode == 2, run.stderr
    assert "not enough space in the model cache" in run.stderr and "MB" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr


def test_an_mlx_write_failure_while_converting_is_a_disk_full_error(isolated_dirs, monkeypatch):
    import mlx.core as mx

    def fail(*args, **kwargs):
        raise RuntimeError("[write] Unable to write 1048576 bytes to file.")

    monkeypatch.setattr(mx, "save_safetensors", fail)
    with pytest.raises(DiskFullError, match="model cache .* needs about \\d+ MB"):
        store.prepare_model("tiny.en", dtype="float32")
    assert not list(store.models_root().glob(".tmp-*"))  # nothing half-written is left


def test_damaged_manifests_are_a_model_error(tmp_path):
    rng = random.Random(15)
    weights = tmp_path / "weights.safetensors"
    weights.write_bytes(b"\0" * 64)
    good = {"format": store.FORMAT_VERSION, "weights": "weights.safetensors", "sha256": store.file_sha256(weights)}
    variants = [
        b"",
        b"{",
        b"[]",
        b"null",
        b'"x"',
        json.dumps({**good, "weights": 5}).encode(),
        json.dumps({**good, "weights": "../../etc/passwd"}).encode(),
        json.dumps({**good, "format": "1"}).encode(),
        json.dumps({**good, "sha256": None}).encode(),
        b"\xff\xfe\xfa",
    ]
    raw = json.dumps(good).encode()
    for _ in range(60):
        data = bytearray(raw)
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        variants.append(bytes(data))
    (tmp_path / "config.json").write_text("{}")
    for data in variants:
        (tmp_path / "manifest.json").write_bytes(data)
        try:
            store.verify_model_dir(tmp_path)
        except ModelError:
            continue
        assert json.loads(data)["sha256"] == good["sha256"]  # passes only when the weights still match
    for config in (b"", b"[1]", b"\xff"):
        (tmp_path / "manifest.json").write_bytes(raw)
        (tmp_path / "config.json").write_bytes(config)
        with pytest.raises(WhisperFlowError):
            store.verify_model_dir(tmp_path)
