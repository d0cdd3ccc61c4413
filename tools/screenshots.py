"""Take the README's screenshots: `xvfb-run -s "-screen 0 1280x800x24" python -m tools.screenshots docs/screenshots`
(`--only settings wizard` retakes those two groups without the session's shots).

The transcript and captions come from a real session on the bundled sample (tiny.en). Xvfb has no
compositor, so the caption window is composited over the call window here the way a compositor
would: its translucent pixels blended over what is behind it.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from PySide6.QtCore import QEventLoop, QPoint, QRect, Qt
from PySide6.QtGui import QColor, QFont, QLinearGradient, QPainter
from PySide6.QtWidgets import QApplication, QWidget

from engine.runtime.paths import SAMPLE_AUDIO as SAMPLE
from engine.runtime.startup import prepare


def wait(app: QApplication, seconds: float = 0.3, until=None, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + (timeout if until else seconds)
    while time.monotonic() < deadline and not (until and until()):
        app.processEvents(QEventLoop.AllEvents, 50)
        time.sleep(0.01)


class CallWindow(QWidget):
    """A stand-in video call: four participant tiles."""

    def __init__(self):
        super().__init__()
        self.setWindowTitle("Team call")
        self.resize(1000, 640)

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), QColor("#1b1f24"))
        names = ("Ana", "Ben", "Chen", "Dara")
        colours = ("#4c6ef5", "#12b886", "#f59f00", "#e64980")
        w, h = (self.width() - 30) // 2, (self.height() - 30) // 2
        for i, (name, colour) in enumerate(zip(names, colours)):
            tile = QRect(10 + (i % 2) * (w + 10), 10 + (i // 2) * (h + 10), w, h)
            gradient = QLinearGradient(tile.topLeft(), tile.bottomRight())
            gradient.setColorAt(0, QColor(colour).darker(160))
            gradient.setColorAt(1, QColor("#2b3036"))
            p.fillRect(tile, gradient)
            p.setBrush(QColor(colour))
            p.setPen(Qt.NoPen)
            p.drawEllipse(tile.center(), 46, 46)
            p.setPen(QColor("white"))
            p.setFont(QFont(self.font().family(), 28, QFont.Bold))
            p.drawText(QRect(tile.center() - QPoint(46, 46), tile.center() + QPoint(46, 46)), Qt.AlignCenter, name[0])
            p.setFont(QFont(self.font().family(), 12))
            p.drawText(tile.adjusted(12, 0, 0, -10), Qt.AlignLeft | Qt.AlignBottom, name)
        p.end()


def save(widget: QWidget, path: Path) -> None:
    widget.grab().save(str(path))
    print(f"wrote {path}")


def captions_over_call(app: QApplication, wf, out: Path) -> None:
    call = CallWindow()
    call.move(0, 0)
    call.show()
    captions = wf.window.captions
    captions.caption_style.show_latency = True
    captions.setGeometry(120, 470, 760, captions.preferred_height())
    captions.show()
    wait(app)
    image = call.grab()
    painter = QPainter(image)
    painter.drawPixmap(captions.geometry().topLeft() - call.geometry().topLeft(), captions.grab())
    painter.end()
    image.save(str(out / "captions-over-call.png"))
    print(f"wrote {out / 'captions-over-call.png'}")
    call.close()


def session_shots(app: QApplication, wf, out: Path) -> None:
    """The captions over a call and the main window, from a real session on the sample; About."""
    from engine.audio.sources import PacedFileSource

    updates = []
    wf.window.controller.update.connect(updates.append)
    wf.window.source_picker.choose_file(str(SAMPLE))
    wf.window.controller.start("Sample recording", lambda: PacedFileSource(SAMPLE), "realtime")
    captions = wf.window.captions
    wait(app, until=lambda: len(captions._confirmed) >= 8 and len(captions._tentative) >= 2)
    # Caption mid-sentence: confirmed words and a dimmed tail, as during a call.
    captions_over_call(app, wf, out)
    wait(app, until=lambda: wf.window.controller.state == "idle", timeout=90)
    wf.window.transcript.search.setText("")
    save(wf.window, out / "main-window.png")
    wf.window.transcript.search.setText("arts")
    wait(app)
    save(wf.window, out / "main-window-search.png")
    wf.window.transcript.search.setText("")

    about = wf.window.open_about()
    wait(app, 0.5)
    save(about, out / "about.png")
    about.close()


def settings_shots(app: QApplication, wf, loaded, out: Path) -> None:
    """Each Settings tab, with a real calibration (two of the settings, to keep it short) on the Performance tab
    and the Transcription tab's Advanced section opened in a shot of its own."""
    from engine.stream.profiler import calibrate
    from engine.stream.profiles import Allocation

    calibrate(loaded, allocations=[Allocation(False, 1), Allocation(False, 2)])
    dialog = wf.window.open_settings()
    dialog.calibration.details_button.setChecked(True)
    for index, name in enumerate(("transcription", "performance", "captions")):
        dialog.tabs.setCurrentIndex(index)
        wait(app, 6.0 if name == "performance" else 0.5)  # a few power/CPU samples
        save(dialog, out / f"settings-{name}.png")
    dialog.tabs.setCurrentIndex(0)
    dialog.advanced.set_open(True)
    wait(app, 0.5)
    save(dialog, out / "settings-transcription-advanced.png")
    dialog.close()


def wizard_shots(app: QApplication, wf, out: Path) -> None:
    wizard = wf.open_wizard()
    wizard.source.picker.choose_file(str(SAMPLE))
    wizard.source.test_button.click()
    wait(app, 1.5)
    pages = ("welcome", "source", "model", "calibration", "preview", "done")
    for i, name in enumerate(pages):
        if name == "model":
            wait(app, until=wizard.model.isComplete)
        wait(app, 0.5)
        save(wizard, out / f"wizard-{i + 1}-{name}.png")
        if name != "done":
            wizard.next()
    wizard.close()


def main(out: Path, only: set[str]) -> int:
    prepare()
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="wf-shots-"))
    for name in ("CONFIG", "DATA"):
        os.environ[f"WHISPERFLOW_{name}_DIR"] = str(scratch / name.lower())
    from app.main import WhisperFlowApp, make_application

    app = make_application(sys.argv)
    from engine.model.whisper_model import load_model

    loaded = load_model("tiny.en")
    wf = WhisperFlowApp(preloaded=(loaded,))
    wf.settings.first_run_done = True
    # The clear sample leaves few words below the default 50 %: a higher threshold shows the dotted underline.
    wf.settings.caption.unsure_below = 0.8
    wf.window.transcript.set_unsure_below(0.8)
    wf.window.resize(900, 620)
    wf.start()
    if "session" in only:
        session_shots(app, wf, out)
    if "settings" in only:
        settings_shots(app, wf, loaded, out)
    if "wizard" in only:
        wizard_shots(app, wf, out)
    wf.window.quit()
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    groups = {"session", "settings", "wizard"}
    if "--only" in args:
        groups = set(args[args.index("--only") + 1 :])
        args = args[: args.index("--only")]
    sys.exit(main(Path(args[0] if args else "docs/screenshots"), groups))
