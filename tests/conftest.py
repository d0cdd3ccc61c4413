"""Shared fixtures: the real tiny.en model, loaded once per test session."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from engine.runtime.startup import prepare  # noqa: E402

prepare()  # OpenBLAS before any test module imports MLX


@pytest.fixture(scope="session")
def tiny_model():
    from engine.model.whisper_model import load_model

    return load_model("tiny.en")


@pytest.fixture()
def isolated_dirs(tmp_path, monkeypatch):
    """Fresh cache/config/data dirs for tests that write there."""
    for name in ("CACHE", "CONFIG", "DATA"):
        path = tmp_path / name.lower()
        monkeypatch.setenv(f"WHISPERFLOW_{name}_DIR", str(path))
    return tmp_path


pytest_plugins = ["pulse_mic"]  # the virtual_mic fixture (private PulseAudio server)
