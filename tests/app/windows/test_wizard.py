"""The first-run wizard runs on first start, through every page to the end; skipping it leaves a working app."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QWizard
from testdata import DATA

from app.main import WhisperFlowApp
from app.settings import load_settings
from app.windows.about_dialog import about_html
from app.windows.tray import closing_behaviour, tray_available
from app.windows.wizard import WelcomePage
from engine.audio.sources import PacedFileSource
from engine.stream.profiles import Allocation

CLIP = DATA / "LJ001-0009.wav"


@pytest.fixture()
def first_start(qtbot, isolated_dirs, tiny_model):
    wf = WhisperFlowApp(preloaded=(tiny_model,))
    qtbot.addWidget(wf.window)
    yield wf
    wf.window.quit()


def test_the_wizard_runs_to_the_end(qtbot, first_start):
    wf = first_start
    assert wf.start() is None  # nothing to recover on a first start
    wizard = wf.wizard
    assert wizard is not None and wizard.isVisible()
    assert "stays on this computer" in wizard.welcome.text.text()

    wizard.next()
    page = wizard.source
    page.picker.choose_file(str(CLIP))
    page.test_button.click()
    qtbot.waitUntil(lambda: page.meter.peak > 0.3, timeout=10000)  # the meter follows the speech
    page.test_button.click()
    qtbot.waitUntil(lambda: page.test_button.text() == "Test", timeout=5000)

    wizard.next()
    assert wizard.currentPage() is wizard.model
    qtbot.waitUntil(wizard.model.isComplete, timeout=20000)
    assert wizard.model.ready() and "ready" in wizard.model.progress.format()

    wizard.next()
    panel = wizard.calibration.panel
    assert panel.start_button.isEnabled() and "not yet measured" in panel.summary.text()
    panel.start_button.click()
    assert not wizard.calibration.isComplete()  # no leaving while it measures
    panel.cancel_button.click()
    qtbot.waitUntil(lambda: not panel.running(), timeout=120000)
    assert "cancelled" in panel.status.text() and wizard.calibration.isComplete()
    assert wizard.button(QWizard.NextButton).isEnabled()

    # a calibration that runs to the end enables Next (one allocation, to keep the test short)
    panel.allocations = [Allocation(False, 2)]
    panel.start_button.click()
    assert not wizard.button(QWizard.NextButton).isEnabled()
    with qtbot.waitSignal(panel.calibrated, timeout=180000):
        pass
    assert not panel.running() and wizard.calibration.isComplete()
    assert wizard.button(QWizard.NextButton).isEnabled()
    assert "Speed setting found for this computer" in panel.summary.text() and "BLAS" not in panel.summary.text()
    assert panel.details_button.isVisible() and not panel.table.isVisible()  # the numbers wait behind "Show details"
    panel.details_button.click()
    assert panel.table.isVisible() and panel.table.rowCount() == 1

    wizard.next()
    wizard.preview.font_spin.setValue(34)
    assert wizard.preview.preview.caption_style.font_size == 34
    wizard.next()
    assert wizard.currentPage() is wizard.done_page
    assert not wizard.button(QWizard.CancelButton).isVisible()  # no "Skip setup" on the last page
    with qtbot.waitSignal(wizard.finished, timeout=5000):
        wizard.button(QWizard.FinishButton).click()

    saved = load_settings()
    assert saved.first_run_done and saved.caption.font_size == 34
    assert wf.window.captions.caption_style.font_size == 34


def test_skipping_the_wizard_still_gives_a_working_app(qtbot, first_start):
    wf = first_start
    wf.start()
    with qtbot.waitSignal(wf.wizard.finished, timeout=5000):
        wf.wizard.button(QWizard.CancelButton).click()
    assert load_settings().first_run_done  # not shown again at start ...
    assert wf.window.isVisible()
    wf.window.wizard_requested.emit()  # ... but still available from the menu
    assert wf.wizard is not None and wf.wizard.isVisible()


def test_the_last_page_says_what_closing_the_window_does_and_it_does_that(qtbot, first_start):
    wf = first_start
    wf.start()
    text = wf.wizard.done_page.text.text()
    wf.wizard.reject()
    window = wf.window
    tray = window.tray.isVisible()
    assert tray == tray_available()
    assert ("icon" in text) == tray  # no tray here (Xvfb, offscreen): the page mentions none
    window.controller.start("Clip", lambda: PacedFileSource(CLIP), "realtime")
    qtbot.waitUntil(lambda: window.controller.state == "running", timeout=30000)
    if tray:
        window.close()
        assert not window.isVisible() and window.controller.state == "running"
    else:
        assert "Closing the main window stops captions and quits WhisperFlow." in text
        with qtbot.waitSignal(window.closed, timeout=30000):  # the app quits on it (app.main.run_app)
            window.close()
        assert not window.isVisible()


def test_with_a_tray_the_page_says_where_the_icon_is():
    mac, linux = closing_behaviour(True, "darwin"), closing_behaviour(True, "linux")
    assert "icon in the menu bar" in mac and "icon in the system tray" in linux
    assert "keeps them running" in mac and "quits WhisperFlow" in mac
    assert "icon" not in closing_behaviour(False, "darwin")


def test_the_welcome_page_names_the_folders_as_about_does_with_the_home_folder_as_tilde(
    qtbot, isolated_dirs, monkeypatch
):
    monkeypatch.setenv("HOME", str(isolated_dirs))  # the folders isolated_dirs made are inside this home
    page = WelcomePage()
    qtbot.addWidget(page)
    text = page.text.text()
    assert "<code>~/data/sessions</code>" in text and "<code>~/cache/models</code>" in text
    assert str(isolated_dirs) not in text
    assert "<td>~/data/sessions</td>" in about_html("tiny.en")
    monkeypatch.setenv("HOME", str(isolated_dirs / "elsewhere"))  # folders outside the home are named in full
    elsewhere = WelcomePage()
    qtbot.addWidget(elsewhere)
    assert f"<code>{isolated_dirs}/data/sessions</code>" in elsewhere.text.text()
