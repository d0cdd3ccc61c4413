"""Past sessions: lengths in the one duration format the status bar uses, and previews cut at a word with "…"."""

from app.windows.recovery_dialog import RecoveryDialog
from app.windows.sessions_dialog import COLUMNS, SessionsDialog
from engine.session.journal import PREVIEW_CHARS, SessionJournal, list_sessions
from engine.session.words import Word

LONG = "Printing, in the only sense with which we are at present concerned, differs from most if not from all the arts"


def journal(texts: list[str], last_end_s: float) -> SessionJournal:
    """A real session journal holding texts, its last word ending at last_end_s (still open: interrupted)."""
    session = SessionJournal.start(None, "mic", "tiny.en")
    step = last_end_s / len(texts)
    session.append([Word(text, i * step, (i + 1) * step, 0.9) for i, text in enumerate(texts)])
    return session


def test_lengths_and_previews(qtbot, isolated_dirs):
    journal(LONG.split(), 153.0).close()
    journal("Hello there.".split(), 4.2).close()
    dialog = SessionsDialog()
    qtbot.addWidget(dialog)
    cells = {
        info.preview[:5]: [dialog.table.item(row, c).text() for c in range(len(COLUMNS))]
        for row, info in enumerate(dialog.sessions)
    }
    length, beginning = COLUMNS.index("Length"), COLUMNS.index("Beginning")
    assert cells["Print"][length] == "2:33" and cells["Hello"][length] == "0:04"
    assert len(LONG) > PREVIEW_CHARS
    shown = cells["Print"][beginning]
    assert shown.endswith("…") and LONG.startswith(shown[:-1]) and LONG[len(shown) - 1] == " "
    assert cells["Hello"][beginning] == "Hello there."


def test_the_recovery_dialog_cuts_previews_the_same_way(qtbot, isolated_dirs):
    interrupted = [journal(LONG.split(), 153.0), journal("Hello there.".split(), 4.2)]
    dialog = RecoveryDialog(list_sessions())
    qtbot.addWidget(dialog)
    for session in interrupted:
        session.close()
    previews = sorted(dialog.list.item(i).text().split("\n")[1] for i in range(dialog.list.count()))
    assert previews[0] == "“Hello there.”"
    assert previews[1].endswith("…”") and LONG.startswith(previews[1][1:-2]) and LONG[len(previews[1]) - 3] == " "
