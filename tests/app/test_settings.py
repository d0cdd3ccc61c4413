"""Settings made in the settings pane and the caption window persist across restarts."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.main import WhisperFlowApp
from app.settings import SETTINGS_FILE, STREAM_FIELDS, AppSettings, load_settings, save_settings, settings_path
from engine.errors import DiskFullError
from engine.model.store import DEFAULT_MODEL
from engine.stream.config import validate_stream_config
from engine.stream.settings import SETTING


@pytest.fixture()
def make_app(qtbot, isolated_dirs):
    apps = []

    def make() -> WhisperFlowApp:
        wf = WhisperFlowApp()
        qtbot.addWidget(wf.window)
        apps.append(wf)
        return wf

    yield make
    for wf in apps:
        wf.window.quit()


def test_settings_persist_across_restarts(qtbot, make_app):
    wf = make_app()
    dialog = wf.window.open_settings()
    dialog.step_spin.setValue(1.5)
    dialog.accuracy_slider.setValue(3)
    assert dialog.toggles["hush"].isChecked()  # `flow` uses the hush word
    dialog.toggles["hush"].setChecked(False)
    dialog.toggles["pipeline"].setChecked(True)
    dialog.font_spin.setValue(30)
    dialog.lines_spin.setValue(3)
    dialog.opacity_spin.setValue(55)
    dialog.hide_spin.setValue(12)
    dialog.latency_box.setChecked(True)
    assert wf.window.captions.caption_style.font_size == 30  # applied live
    qtbot.waitUntil(lambda: settings_path().exists() and load_settings().caption.lines == 3, timeout=3000)
    wf.window.quit()

    again = make_app().settings
    assert (again.min_chunk_s, again.beam_size, again.hush, again.pipeline) == (1.5, 3, False, True)
    assert again.beam_pruning is None and again.effective().beam_pruning is True  # untouched: the policy decides
    caption = again.caption
    assert (caption.font_size, caption.lines, caption.opacity, caption.hide_after_s, caption.show_latency) == (
        30,
        3,
        0.55,
        12.0,
        True,
    )
    assert again.stream_config().resolved().beam_size == 3


def test_the_caption_window_menu_changes_are_saved_and_shown_in_settings(qtbot, make_app):
    wf = make_app()
    dialog = wf.window.open_settings("Captions")
    menu = wf.window.captions.build_menu()
    lines = next(a.menu() for a in menu.actions() if a.text() == "Lines")
    next(a for a in lines.actions() if a.text() == "4").trigger()
    assert dialog.lines_spin.value() == 4
    qtbot.waitUntil(lambda: settings_path().exists() and load_settings().caption.lines == 4, timeout=3000)


def test_default_settings_stream_exactly_as_the_flow_policy(isolated_dirs):
    from engine.model.store import DEFAULT_MODEL
    from engine.stream.config import POLICIES, StreamConfig

    settings = AppSettings()
    flow = StreamConfig(policy="flow", model=DEFAULT_MODEL).resolved()
    assert settings.stream_config().resolved() == flow
    assert settings.effective().hush is POLICIES["flow"]["hush"] is True  # the hush word is on, as in `flow`
    settings.low_power = True
    assert settings.effective() == StreamConfig(policy="low-power", model=DEFAULT_MODEL).resolved()
    settings.low_power = False
    save_settings(settings)
    assert json.loads(settings_path().read_text()) == {}  # nothing changed, nothing stored
    settings.beam_size = 2
    settings.caption.lines = 3
    save_settings(settings)
    assert json.loads(settings_path().read_text()) == {"beam_size": 2, "caption": {"lines": 3}}
    again = load_settings()
    assert again.stream_config().resolved() == StreamConfig(policy="flow", model=DEFAULT_MODEL, beam_size=2).resolved()


def test_settings_are_written_with_the_engines_atomic_write(isolated_dirs, monkeypatch):
    import app.settings as module
    from engine.runtime import safe_write

    assert module.write_file_atomic is safe_write.write_file_atomic
    settings_path().write_text('{"beam_size": 3}')
    monkeypatch.setattr(safe_write.os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(28, "No space left")))
    with pytest.raises(DiskFullError):
        save_settings(AppSettings(beam_size=1))
    assert load_settings().beam_size == 3  # the old file is intact
    assert [p.name for p in settings_path().parent.iterdir()] == [SETTINGS_FILE]  # no temporary file left


def test_a_damaged_settings_file_gives_defaults(isolated_dirs):
    settings_path().write_text("{not json")
    assert load_settings() == AppSettings()
    settings_path().write_text('{"beam_size": 2, "from_a_newer_version": 1, "caption": {"lines": 1}}')
    loaded = load_settings()
    assert loaded.beam_size == 2 and loaded.caption.lines == 1 and loaded.caption.font_size == 22


def test_values_out_of_range_are_dropped_and_the_rest_kept(isolated_dirs):
    settings_path().write_text(
        '{"min_chunk_s": -1, "beam_size": 0, "buffer_trimming_s": "x", "hush": true, "caption": {"lines": 1}}'
    )
    loaded = load_settings()
    assert (loaded.min_chunk_s, loaded.beam_size) == (None, None)  # the policy decides them again
    assert loaded.hush is True and loaded.caption.lines == 1
    loaded.stream_config().resolved()  # and the stream they describe is valid


def test_the_apps_stream_settings_are_the_declared_ones_checked_as_the_cli_does(isolated_dirs):
    assert {"model", *STREAM_FIELDS} <= set(SETTING)
    settings_path().write_text('{"min_chunk_s": 10.5, "language": "klingon", "model": "tiny", "beam_pruning": 1}')
    loaded = load_settings()  # each is what `whisperflow stream` refuses: --min-chunk 10.5, --language klingon, ...
    assert (loaded.min_chunk_s, loaded.language, loaded.model, loaded.beam_pruning) == (None, None, DEFAULT_MODEL, None)


def test_caption_values_of_the_wrong_kind_or_out_of_range_fall_back_to_the_defaults(isolated_dirs):
    saved = {
        "font_size": 10000,
        "opacity": 0.5,
        "lines": "three",
        "hide_after_s": -4,
        "unsure_below": 1.5,
        "text_color": "#112233",
        "background_color": 7,
        "show_latency": True,
        "geometry": [1, 2, "x", 4],
    }
    settings_path().write_text(json.dumps({"caption": saved}))
    caption, default = load_settings().caption, AppSettings().caption
    assert (caption.opacity, caption.text_color, caption.show_latency) == (0.5, "#112233", True)
    assert (
        caption.font_size,
        caption.lines,
        caption.hide_after_s,
        caption.unsure_below,
        caption.background_color,
        caption.geometry,
    ) == (default.font_size, default.lines, default.hide_after_s, default.unsure_below, default.background_color, None)


def _damaged_settings(rng: np.random.Generator, good: bytes) -> bytes:
    """One damaged settings file: flipped bytes, a cut, or valid JSON with values of every wrong kind."""
    kind = rng.integers(3)
    if kind == 0:
        data = bytearray(good)
        for i in rng.integers(0, len(data), rng.integers(1, 8)):
            data[i] = int(rng.integers(256))
        return bytes(data)
    if kind == 1:
        return good[: rng.integers(0, len(good))]
    wrong = [None, -1, 0, 1e308, float("nan"), "x", [], {}, True, 10**9, -0.5]
    saved = json.loads(good)
    for target in (saved["caption"], saved):
        for key in [k for k in target if k != "caption"]:
            if rng.random() < 0.5:
                target[key] = wrong[rng.integers(len(wrong))]
    if rng.random() < 0.2:
        saved["caption"] = wrong[rng.integers(len(wrong))]
    return json.dumps(saved).encode()


def test_fuzzed_settings_files_load_as_valid_settings(isolated_dirs):
    settings = AppSettings(min_chunk_s=0.5, beam_size=3, hush=True, source_id="pulse:x")
    settings.caption.font_size, settings.caption.unsure_below = 30, 0.4
    save_settings(settings)
    good = settings_path().read_bytes()
    rng = np.random.default_rng(15)
    for _ in range(200):
        settings_path().write_bytes(_damaged_settings(rng, good))
        loaded = load_settings()  # never raises
        validate_stream_config(loaded.stream_config())  # and describes a valid stream
        caption = loaded.caption
        assert 10 <= caption.font_size <= 72 and 1 <= caption.lines <= 6 and 0 <= caption.unsure_below <= 1
        assert 0.1 <= caption.opacity <= 1 and 0 <= caption.hide_after_s <= 600


def test_the_words_to_know_reach_the_stream(isolated_dirs, tiny_model):
    from engine.stream.config import build_processor

    save_settings(AppSettings(words="Gutenberg, Peter Schoeffer, Maintz"))
    config = load_settings().stream_config()
    processor, notices = build_processor(tiny_model, config)
    assert processor.transcriber.vocabulary.kept == ("Gutenberg", "Peter Schoeffer", "Maintz") and not notices
    assert processor.transcriber.decode_options.bias is processor.transcriber.vocabulary.bias
    final = processor.transcriber.final_pass()  # the words are its bias, not its prompt
    assert final.decode_options.bias is processor.transcriber.vocabulary.bias and final.vocabulary.pieces == ()


def test_malformed_saved_words_are_dropped(isolated_dirs):
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text(json.dumps({"words": "x" * 300}), encoding="utf-8")
    assert load_settings().words is None
