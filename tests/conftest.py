"""Shared fixtures: the real tiny.en model, loaded once per test session."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from engine.runtime.startup import prepare  # noqa: E402

prepare()  # OpenBLAS before any test module imports MLX


def pytest_configure(config):
    """Before the workers start (pytest-xdist), convert tiny.en into the model cache once, so that no two workers
    convert it at the same time on a fresh machine."""
    if not hasattr(config, "workerinput"):
        from engine.model.store import prepare_model

        prepare_model("tiny.en")


@pytest.fixture(scope="session")
def tiny_model():
    from engine.model.whisper_model import load_model

    return load_model("tiny.en")


@pytest.fixture()
def isolated_dirs(tmp_path, monkeypatch):
    """Fresh cache/config/data/log dirs for tests that write there."""
    for name in ("CACHE", "CONFIG", "DATA", "LOG"):
        path = tmp_path / name.lower()
        monkeypatch.setenv(f"WHISPERFLOW_{name}_DIR", str(path))
    return tmp_path


@pytest.fixture()
def restore_logging():
    """Logging as it was before the test: the root's handlers and level and WhisperFlow's loggers' levels (a test
    that calls engine.runtime.logs.configure_logging changes them for the whole process)."""
    import logging

    from engine.runtime.logs import OUR_LOGGERS

    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    levels = {name: logging.getLogger(name).level for name in OUR_LOGGERS}
    yield
    for handler in root.handlers:
        if handler not in handlers:
            root.removeHandler(handler)
            handler.close()
    root.setLevel(level)
    for name, old in levels.items():
        logging.getLogger(name).setLevel(old)


pytest_plugins = ["pulse_mic"]  # the virtual_mic fixture (private PulseAudio server)
