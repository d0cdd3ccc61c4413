"""Every menu action and shortcut of the main window, fired as Qt fires it: the real QAction's trigger()
(which passes `checked` to the slot, the way Tools ▸ Settings… once broke)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices, QKeySequence
from PySide6.QtWidgets import QFileDialog
from testdata import DATA

from app.main import WhisperFlowApp
from app.settings import load_settings
from app.windows.about_dialog import AboutDialog
from app.windows.sessions_dialog import SessionsDialog
from engine.model.store import models_root
from engine.runtime.logs import log_file
from engine.runtime.paths import config_dir, log_dir
from engine.session.journal import sessions_dir
from engine.stream.config import POLICIES

CLIP = DATA / "LJ001-0009.wav"
REPO = Path(__file__).resolve().parents[3]
SHIFT_CTRL = Qt.ControlModifier | Qt.ShiftModifier

MENU = {  # path: shortcut (a standard key is the platform's own: Ctrl+Q / Cmd+Q, Ctrl+F / Cmd+F)
    "File/Export transcript…": "Ctrl+E",
    "File/Export selection…": "Ctrl+Shift+E",
    "File/Past sessions…": "Ctrl+H",
    "File/Quit": QKeySequence.Quit,
    "Captions/Start": "Ctrl+Return",
    "Captions/Show caption window": "Ctrl+Shift+C",
    "Captions/Reset caption position": None,
    "Captions/Find in transcript": QKeySequence.Find,
    "Tools/Settings…": "Ctrl+,",
    "Tools/Setup wizard…": None,
    "Help/Show log file": None,
    "Help/About WhisperFlow": None,
}


@pytest.fixture()
def wf(qtbot, isolated_dirs, tiny_model):
    app = WhisperFlowApp(preloaded=(tiny_model,))
    app.settings.first_run_done = True
    app.settings.beam_size = 1  # quick sessions
    qtbot.addWidget(app.window)
    app.start()
    qtbot.waitExposed(app.window)
    yield app
    app.window.quit()


def _shown(wf, cls):
    return [w for w in wf.window.findChildren(cls) if w.isVisible()]


def test_the_menus_have_exactly_these_actions_and_shortcuts(wf):
    actions = wf.window.menu_actions()
    assert set(actions) == set(MENU)
    for path, shortcut in MENU.items():
        expected = QKeySequence(shortcut) if shortcut is not None else QKeySequence()
        assert actions[path].shortcut() == expected, path


def test_settings_action_and_ctrl_comma_open_settings(qtbot, wf):
    action = wf.window.menu_actions()["Tools/Settings…"]
    assert action.shortcut().toString() == "Ctrl+,"
    action.trigger()
    dialog = wf.window.settings_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.tabs.tabText(dialog.tabs.currentIndex()) == "Transcription"
    # Low power switches to the low-power policy, and the controls show what it decides
    assert not dialog.low_power_box.isChecked() and dialog.step_spin.value() == pytest.approx(0.3)
    dialog.low_power_box.click()
    assert wf.settings.low_power and wf.settings.effective().policy == "low-power"
    assert dialog.step_spin.value() == pytest.approx(POLICIES["low-power"]["min_chunk_s"])
    assert wf.settings.min_chunk_s is None and wf.settings.beam_size == 1  # shown, not stored as overrides


def test_setup_wizard_action_opens_the_wizard(qtbot, wf):
    wf.window.menu_actions()["Tools/Setup wizard…"].trigger()
    assert wf.wizard is not None and wf.wizard.isVisible()
    wf.wizard.reject()


def test_about_action_shows_version_model_folders_and_licences(qtbot, wf, isolated_dirs):
    wf.window.menu_actions()["Help/About WhisperFlow"].trigger()
    dialogs = _shown(wf, AboutDialog)
    assert len(dialogs) == 1
    text = dialogs[0].text.text()
    assert "WhisperFlow" in text and "tiny.en" in text and "LJ Speech" in text and "MIT" in text
    # the person's folders, named in words, and nothing of the repository (assets/, hushwords/, the checkout)
    for folder in (sessions_dir(), config_dir(), models_root(), log_dir()):
        assert str(folder) in text and str(folder).startswith(str(isolated_dirs))
    assert "Transcripts" in text and "Log files" in text
    assert "assets/" not in text and "hushwords/" not in text and str(REPO) not in text
    dialogs[0].close()


class OpenedUrls(QObject):
    """Takes the file URLs the app asks the desktop to open (QDesktopServices.setUrlHandler)."""

    def __init__(self):
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


def test_show_log_file_action_opens_the_log_file(qtbot, wf):
    opened = OpenedUrls()
    QDesktopServices.setUrlHandler("file", opened, "open")
    try:
        wf.window.menu_actions()["Help/Show log file"].trigger()
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert [Path(url.toLocalFile()) for url in opened.urls] == [log_file()]
    assert log_file().parent == Path(os.environ["WHISPERFLOW_LOG_DIR"])  # the test's folder, not the person's


def test_past_sessions_action_opens_the_list(qtbot, wf):
    wf.window.menu_actions()["File/Past sessions…"].trigger()
    dialogs = _shown(wf, SessionsDialog)
    assert len(dialogs) == 1
    dialogs[0].close()


def test_show_caption_window_action_toggles_the_captions(qtbot, wf):
    action = wf.window.menu_actions()["Captions/Show caption window"]
    assert action.isChecked() and wf.window.captions.enabled
    action.trigger()
    assert not action.isChecked() and not wf.window.captions.enabled
    action.trigger()
    assert action.isChecked() and wf.window.captions.enabled


def test_reset_caption_position_puts_the_captions_back_at_the_bottom_centre_and_saves_that(qtbot, wf):
    captions = wf.window.captions
    area = wf.window.screen().availableGeometry()
    captions.show()
    captions.move(area.x() + 10, area.y() + 10)  # the top-left corner, where the tester lost it
    with qtbot.waitSignal(wf.window.settings_changed, timeout=2000):
        wf.window.menu_actions()["Captions/Reset caption position"].trigger()
    g = captions.geometry()
    assert abs(g.center().x() - area.center().x()) <= 1 and area.contains(g) and g.bottom() > area.center().y()
    wf.save()
    assert load_settings().caption.geometry == [g.x(), g.y(), g.width(), g.height()]


def test_find_action_focuses_the_search_box(qtbot, wf):
    wf.window.activateWindow()
    wf.window.menu_actions()["Captions/Find in transcript"].trigger()
    qtbot.waitUntil(wf.window.transcript.search.hasFocus, timeout=3000)


def test_export_shortcuts_work_from_the_search_box(qtbot, wf):
    """After Stop the focus is in the search box, whose line editing wants Ctrl+E (end of line) for itself."""
    window, search = wf.window, wf.window.transcript.search
    window.activateWindow()
    window.menu_actions()["Captions/Find in transcript"].trigger()
    qtbot.waitUntil(search.hasFocus, timeout=3000)
    for modifiers, title in ((Qt.ControlModifier, "Export transcript"), (SHIFT_CTRL, "Export selection")):
        qtbot.keyClick(search, Qt.Key_E, modifiers)
        dialogs = [d for d in window.findChildren(QFileDialog) if d.isVisible()]
        assert [d.windowTitle() for d in dialogs] == [title]
        dialogs[0].reject()
        search.setFocus()
    qtbot.keyClicks(search, "words")
    qtbot.keyClick(search, Qt.Key_A, Qt.ControlModifier)  # the box's own editing keys still edit
    qtbot.keyClick(search, Qt.Key_Backspace)
    assert search.text() == ""


@pytest.mark.skipif(
    os.environ.get("QT_QPA_PLATFORM") == "xcb" or shutil.which("xvfb-run") is None, reason="needs xvfb-run"
)
def test_export_shortcuts_work_from_the_search_box_on_x11():
    """Offscreen Qt edits text with the Windows keys; X11's take Ctrl+E (end of line): the test above, under Xvfb."""
    test = f"{__file__}::test_export_shortcuts_work_from_the_search_box"
    run = subprocess.run(
        ["xvfb-run", "-a", sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test],
        env={**os.environ, "QT_QPA_PLATFORM": "xcb"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout[-4000:] + run.stderr[-2000:]


def test_start_action_starts_and_stops_a_session_then_export_actions_export(qtbot, wf, tmp_path):
    window = wf.window
    window.source_picker.choose_file(str(CLIP))
    start = window.menu_actions()["Captions/Start"]
    captions_at_start = []  # connected after the window's own slot: how the captions are once it ran
    window.controller.session_started.connect(lambda _meta: captions_at_start.append(window.captions.isVisible()))
    start.trigger()
    qtbot.waitUntil(lambda: window.controller.state == "running", timeout=30000)
    assert start.text().replace("&", "") == "Stop"
    qtbot.waitUntil(lambda: bool(window.transcript.words()), timeout=60000)
    assert captions_at_start == [False] and window.captions.isVisible()  # no empty box before the first words
    if window.controller.state == "running":
        start.trigger()  # Stop (a short file may also end by itself)
    qtbot.waitUntil(lambda: window.controller.state == "idle", timeout=60000)
    assert start.text().replace("&", "") == "Start"
    # the audio's length as Past sessions shows lengths (m:ss)
    ended = re.compile(r"Session ended: 0:\d\d of audio, \d+ words\.")
    qtbot.waitUntil(lambda: ended.fullmatch(window.statusBar().currentMessage()) is not None, timeout=5000)

    # File ▸ Export transcript…: the save dialog suggests "WhisperFlow <session start>" in the home folder
    window.menu_actions()["File/Export transcript…"].trigger()
    dialog = window.findChild(QFileDialog)
    assert dialog is not None and dialog.isVisible()
    name = Path(dialog.selectedFiles()[0]).name
    assert name.startswith("WhisperFlow 20") and name == window.suggested_export_path().name
    assert window.meta.session_id not in name
    dialog.selectNameFilter(next(f for f in dialog.nameFilters() if "*.srt" in f))
    target = tmp_path / "exports"
    target.mkdir()
    dialog.selectFile(str(target / "talk.srt"))
    dialog.accept()
    assert (target / "talk.srt").read_text().startswith("1\n")
    # ... and the next export opens in that folder
    assert window.suggested_export_path().parent == target

    # File ▸ Export selection…: the selected line only
    window.transcript.list.item(0).setSelected(True)
    window.menu_actions()["File/Export selection…"].trigger()
    dialog = [d for d in window.findChildren(QFileDialog) if d.isVisible()][-1]
    assert Path(dialog.directory().absolutePath()) == target
    dialog.selectNameFilter(next(f for f in dialog.nameFilters() if "*.txt" in f))
    dialog.selectFile(str(target / "part.txt"))
    dialog.accept()
    assert (target / "part.txt").read_text().split("  ", 1)[1] == window.transcript.paragraphs[0].text + "\n"


def test_quit_action_closes_the_app(qtbot, wf):
    with qtbot.waitSignal(wf.window.closed, timeout=10000):
        wf.window.menu_actions()["File/Quit"].trigger()
    assert not wf.window.isVisible()


def _by_text(menu) -> dict:
    return {a.text(): a for a in menu.actions() if not a.isSeparator() and a.text()}


def test_tray_menu_actions(qtbot, wf):
    window = wf.window
    actions = _by_text(window.tray.menu)
    assert set(actions) == {"Start captions", "Show caption window", "Open WhisperFlow", "Quit"}
    actions["Show caption window"].trigger()
    assert not window.captions.enabled and not window.show_captions_action.isChecked()
    actions["Show caption window"].trigger()
    assert window.captions.enabled
    window.hide()
    actions["Open WhisperFlow"].trigger()
    assert window.isVisible()
    window.source_picker.choose_file(str(CLIP))
    actions["Start captions"].trigger()
    qtbot.waitUntil(
        lambda: window.controller.state in ("running", "idle") and window.controller.state != "preparing", timeout=30000
    )
    if window.controller.state == "running":
        actions["Start captions"].trigger()  # its text is now "Stop captions"
    qtbot.waitUntil(lambda: window.controller.state == "idle", timeout=60000)
    with qtbot.waitSignal(window.closed, timeout=10000):
        actions["Quit"].trigger()


def test_caption_window_menu_actions(qtbot, wf):
    captions = wf.window.captions
    actions = _by_text(captions.build_menu())
    assert {
        "Font size",
        "Lines",
        "Opacity",
        "Hide after silence",
        "Text colour…",
        "Background colour…",
        "Show latency",
        "Settings…",
        "Hide captions",
    } <= set(actions)
    actions["Show latency"].trigger()
    assert captions.caption_style.show_latency
    actions["Settings…"].trigger()
    dialog = wf.window.settings_dialog
    assert dialog.isVisible() and dialog.tabs.tabText(dialog.tabs.currentIndex()) == "Captions"
    actions["Hide captions"].trigger()
    assert not captions.enabled and not wf.window.show_captions_action.isChecked()
