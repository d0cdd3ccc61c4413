"""Take the README's screenshots: `xvfb-run -s "-screen 0 1280x800x24" python -m tools.screenshots docs/screenshots`
(`--only settings wizard` retakes those two groups without the session's shots).

The transcript and captions come from a real session (tiny.en) on a reading of about 45 s in three paragraphs,
LJ Speech clips from the shared corpus (../shared/corpus/ljspeech, public domain) when it is there, else on the
bundled sample. The app runs in a fresh home folder of its own, so settings and transcripts start empty and its
folders read as a person's (~/…); it shares this user's model cache. Xvfb has no compositor, so the caption window
is composited over the call window here the way a compositor would: its translucent pixels blended over what is
behind it.

The call shots (`--only call`) come from a real call session: the call fixture (tools/call/fixture.py, two speakers
of the shared corpus, your track without echo) streamed through the app's call source at its own pace.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import platformdirs
import soundfile as sf
from PySide6.QtCore import QEventLoop, QPoint, QRect, Qt
from PySide6.QtGui import QColor, QFont, QLinearGradient, QPainter
from PySide6.QtWidgets import QApplication, QWidget

from engine.runtime.paths import APP_NAME, cache_dir
from engine.runtime.paths import SAMPLE_AUDIO as SAMPLE
from engine.runtime.startup import prepare
from tools.hushword_training.data import corpus_dir

CORPUS = corpus_dir() / "ljspeech"
PARAGRAPHS = (("LJ001-0001", "LJ001-0002"), ("LJ001-0003", "LJ001-0004"), ("LJ001-0005", "LJ001-0006"))
SENTENCE_PAUSE_S, PARAGRAPH_PAUSE_S = 0.4, 2.5  # a paragraph starts after a pause of 2 s (engine.session.paragraphs)


def reading(folder: Path) -> Path:
    """PARAGRAPHS read aloud with pauses between sentences and longer ones between paragraphs, written to folder;
    the bundled sample when the corpus is not there."""
    from engine.audio.files import SAMPLE_RATE, load_audio

    if not CORPUS.is_dir():
        return SAMPLE
    pieces = []
    for paragraph in PARAGRAPHS:
        for clip in paragraph:
            pieces += [load_audio(CORPUS / f"{clip}.wav"), np.zeros(int(SENTENCE_PAUSE_S * SAMPLE_RATE), np.float32)]
        pieces.append(np.zeros(int(PARAGRAPH_PAUSE_S * SAMPLE_RATE), np.float32))
    path = folder / "Reading.wav"
    sf.write(path, np.concatenate(pieces), SAMPLE_RATE)
    return path


def use_fresh_home(home: Path) -> None:
    """Run the app in home as the home folder (its settings, transcripts and logs there), sharing this user's
    model cache through a link where the new home's cache folder would be."""
    models = cache_dir()
    os.environ["HOME"] = str(home)
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        os.environ.pop(name, None)
    for name in ("CONFIG", "DATA", "LOG"):
        os.environ.pop(f"WHISPERFLOW_{name}_DIR", None)
    linked = Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))
    if linked != models:
        linked.parent.mkdir(parents=True, exist_ok=True)
        linked.symlink_to(models)


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


def captions_over_call(app: QApplication, wf, out: Path, name: str = "captions-over-call.png") -> None:
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
    image.save(str(out / name))
    print(f"wrote {out / name}")
    call.close()


def session_shots(app: QApplication, wf, out: Path, audio: Path) -> None:
    """The captions over a call and the main window, from a real session on audio; About."""
    from engine.audio.sources import PacedFileSource

    wf.window.source_picker.choose_file(str(audio))
    wf.window.controller.start(audio.name, lambda: PacedFileSource(audio), "realtime")
    captions = wf.window.captions
    held = lambda: captions.held.side(None)  # noqa: E731 (a new one each session)
    wait(app, until=lambda: len(held().confirmed) >= 8 and len(held().tentative) >= 2)
    # Caption mid-sentence: confirmed words and a dimmed tail, as during a call.
    captions_over_call(app, wf, out)
    wait(app, until=lambda: wf.window.controller.state == "idle", timeout=180)
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


def _shows_both_sides(captions) -> bool:
    labels = {w.speaker for line in captions.visible_lines() for w in line if w.label}
    return labels == {"you", "them"} and not captions.visible_lines()[-1][-1].label


def call_shots(app: QApplication, wf, out: Path, scratch: Path) -> None:
    """The captions over a call and the main window's transcript with both sides, from a call session as a person
    runs one: "Call (you and them)" on a private PulseAudio server (tools/virtual_mic.py), the call fixture's your
    track (headphones: no echo) played into the microphone and Them's into the default sink, stopped after a minute."""
    from app.widgets.source_picker import CALL_KEY
    from engine.audio.devices import rescan_devices
    from tools.call.fixture import CORPUS as CALL_CORPUS
    from tools.call.fixture import build_call, read_recipe, write_call
    from tools.virtual_mic import start_virtual_mic, stop_virtual_mic

    if not CALL_CORPUS.is_dir():
        print(f"no call shots: {CALL_CORPUS} is not here")
        return
    folder = scratch / "call"
    write_call(build_call(read_recipe()), folder)
    (scratch / "pulse").mkdir()
    proc, mic = start_virtual_mic(scratch / "pulse")
    os.environ["PULSE_SERVER"] = mic.server  # for libpulse inside PortAudio's ALSA pulse plugin
    try:
        rescan_devices()
        mic.load_module("module-null-sink", "sink_name=wf_them", "norewinds=1")
        mic.pactl("set-default-sink", "wf_them")
        window, captions = wf.window, wf.window.captions
        window.source_picker.refresh(select_key=CALL_KEY)
        captions.caption_style.lines, captions.caption_style.unsure_below = 3, 0.5
        window.transcript.set_unsure_below(0.5)
        captions.apply_style()
        window.start_button.click()
        wait(app, until=lambda: window.controller.state == "running", timeout=60)
        wait(app, 1.0)
        mic.play(folder / "you-noecho.wav")
        mic.play(folder / "them.wav", "wf_them")
        started = time.monotonic()
        wait(app, until=lambda: time.monotonic() - started > 53 and _shows_both_sides(captions), timeout=120)
        captions_over_call(app, wf, out, "call-captions.png")
        wait(app, until=lambda: time.monotonic() - started > 64, timeout=120)
        window.start_button.click()
        wait(app, until=lambda: window.controller.state == "idle", timeout=120)
        window.transcript.list.scrollToTop()
        wait(app)
        save(window, out / "call-transcript.png")
    finally:
        stop_virtual_mic(proc, mic)
        os.environ.pop("PULSE_SERVER", None)


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
    use_fresh_home(scratch)
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
        session_shots(app, wf, out, reading(scratch))
    if "call" in only:
        call_shots(app, wf, out, scratch)
    if "settings" in only:
        settings_shots(app, wf, loaded, out)
    if "wizard" in only:
        wizard_shots(app, wf, out)
    wf.window.quit()
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    groups = {"session", "call", "settings", "wizard"}
    if "--only" in args:
        groups = set(args[args.index("--only") + 1 :])
        args = args[: args.index("--only")]
    sys.exit(main(Path(args[0] if args else "docs/screenshots"), groups))
