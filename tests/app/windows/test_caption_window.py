"""The floating caption window: its flags, remembered geometry (where it is shown, kept on screen),
confirmed/tentative text, silence hiding; a call's turns named in their sides' colours, or Them's alone."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, Qt, QTimer
from PySide6.QtGui import QColor, QContextMenuEvent, QGuiApplication, QMouseEvent
from PySide6.QtWidgets import QApplication, QMenu

from app.settings import AppSettings, CaptionStyle, load_settings, save_settings
from app.widgets.call_sides import side_colour
from app.widgets.caption_layout import CaptionWord, wrap_words
from app.windows.caption_window import CaptionWindow
from engine.session.events import FinalEvent, StreamUpdate
from engine.session.words import Word


def update(confirmed=(), tentative=(), level=0.0, emitted=2.0) -> StreamUpdate:
    events = [Word(t, i * 0.4, i * 0.4 + 0.3).confirmed(emitted) for i, t in enumerate(confirmed)]
    return StreamUpdate(events, [Word(t, 0.0, 0.1) for t in tentative], emitted, 0.2, 3.0, level)


@pytest.fixture()
def window(qtbot, isolated_dirs):
    w = CaptionWindow(AppSettings().caption)
    qtbot.addWidget(w)
    return w


def test_wrapping_keeps_earlier_breaks_and_marks_confirmed_words():
    words = [CaptionWord(t, i < 3) for i, t in enumerate("aa bb cc dd ee".split())]
    lines = wrap_words(words, width=5, measure=len)  # "aa bb" fits in 5, a third word does not
    assert [[w.text for w in line] for line in lines] == [["aa", "bb"], ["cc", "dd"], ["ee"]]
    assert [w.confirmed for w in lines[1]] == [True, False]
    more = wrap_words(words + [CaptionWord("f", False)], width=5, measure=len)
    assert more[:2] == lines[:2]  # new words never move the breaks before them
    assert wrap_words([CaptionWord("toolongword", True)], 5, len) == [[CaptionWord("toolongword", True)]]


def test_flags_are_frameless_always_on_top_and_translucent(window):
    flags = window.windowFlags()
    assert flags & Qt.FramelessWindowHint
    assert flags & Qt.WindowStaysOnTopHint
    assert window.testAttribute(Qt.WA_TranslucentBackground)


def test_geometry_is_remembered_across_restarts(qtbot, isolated_dirs):
    settings = AppSettings()
    first = CaptionWindow(settings.caption)
    qtbot.addWidget(first)
    first.show()
    first.setGeometry(QRect(123, 211, 640, 150))
    with qtbot.waitSignal(first.style_changed, timeout=2000):  # saved after the move settles
        pass
    save_settings(settings)
    first.close()

    again = CaptionWindow(load_settings().caption)
    qtbot.addWidget(again)
    assert again.geometry() == QRect(123, 211, 640, 150)


def test_dragging_moves_and_edges_resize(window):
    start = QRect(100, 100, 500, 120)
    assert window._dragged(start, Qt.Edge(0), QPoint(30, -20)) == QRect(130, 80, 500, 120)
    resized = window._dragged(start, Qt.RightEdge | Qt.BottomEdge, QPoint(60, 40))
    assert (resized.width(), resized.height()) == (560, 160)
    shrunk = window._dragged(start, Qt.LeftEdge, QPoint(1000, 0))
    assert shrunk.width() >= window.minimumWidth() and shrunk.right() == start.right()


def test_confirmed_words_solid_tail_dimmed_and_replaced_in_place(window):
    window.show()
    window.show_update(update(["Printing,", "then,"], ["for", "our"]))
    assert window.text() == "Printing, then, for our"
    window.show_update(update(["for"], ["our", "purpose"]))
    assert window.text() == "Printing, then, for our purpose"  # the tail was replaced, not appended
    words = [w for line in window.visible_lines() for w in line]
    assert [(w.text, w.confirmed) for w in words][-3:] == [("for", True), ("our", False), ("purpose", False)]
    image = window.grab().toImage()
    assert not image.isNull()


def test_a_final_text_changes_its_words_in_place_and_the_tail_stays(window):
    window.show_update(update(["Kick", "the", "boss", "shit."], ["And"]))
    final = FinalEvent(0, 4, [Word(t, 0.0, 0.1) for t in ("Kick", "the", "ball", "straight.")], 2.0)
    window.show_update(StreamUpdate([], [Word("And", 0.0, 0.1)], 2.5, 0.2, 3.0, finals=[final]))
    assert window.text() == "Kick the ball straight. And"
    window.show_update(update(["And", "then"]))
    assert window.text() == "Kick the ball straight. And then"


def test_a_period_the_words_after_it_contradict_is_shown_as_a_comma(window):
    window.show_update(update(["in", "the", "exhibition."], ["in", "being"]))
    assert window.text() == "in the exhibition, in being"  # the round heard a break there; the next went on
    window.show_update(update([], ["For", "although"]))
    assert window.text() == "in the exhibition. For although"


def test_number_of_lines_follows_the_setting(window):
    window.resize(260, window.height())
    window.show_update(update("one two three four five six seven eight nine ten eleven twelve".split()))
    window.caption_style.lines = 3
    window.apply_style()
    assert len(window.visible_lines()) == 3
    window.caption_style.lines = 1
    window.apply_style()
    assert len(window.visible_lines()) == 1
    assert window.visible_lines()[0][-1].text == "twelve"
    assert window.height() < 3 * window.caption_style.font_size * 2


def test_hides_after_silence_and_returns_on_speech(qtbot, window):
    window.caption_style.hide_after_s = 0.3
    window.show_update(update(["hello"]))
    assert window.isVisible()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=3000)
    window.show_update(update(level=0.0))  # silence keeps it hidden
    assert not window.isVisible()
    window.show_update(update(["again"]))
    assert window.isVisible()
    window.set_enabled(False)  # turned off by the person: speech does not bring it back
    window.show_update(update(["more"]))
    assert not window.isVisible()


def test_context_menu_changes_appearance_and_latency_readout(qtbot, window):
    menu = window.build_menu()
    font_menu = next(a.menu() for a in menu.actions() if a.text() == "Font size")
    with qtbot.waitSignal(window.style_changed, timeout=1000):
        next(a for a in font_menu.actions() if a.text() == "36 pt").trigger()
    assert window.caption_style.font_size == 36
    assert window.height() == window.preferred_height()
    latency = next(a for a in menu.actions() if a.text() == "Show latency")
    latency.trigger()
    assert window.caption_style.show_latency
    window.show_update(update(["word"], emitted=1.7))  # the word ended at 0.3 s, confirmed at 1.7 s
    assert window.latency_text() == "latency 1.4 s"
    assert not window.grab().isNull()


def test_a_right_click_opens_the_menu_and_frees_it_once_closed(qtbot, window):
    window.show()
    QTimer.singleShot(100, lambda: QApplication.activePopupWidget().close())
    click = QContextMenuEvent(QContextMenuEvent.Mouse, QPoint(5, 5), window.mapToGlobal(QPoint(5, 5)))
    QApplication.sendEvent(window, click)  # returns once the menu is closed
    assert window.findChildren(QMenu)  # the menu that was shown
    QApplication.sendPostedEvents(None, QEvent.DeferredDelete)
    assert not window.findChildren(QMenu)


def test_the_caption_window_starts_at_the_bottom_centre_of_the_main_windows_screen(qtbot):
    from app.settings import CaptionStyle
    from app.windows.caption_window import CaptionWindow

    window = CaptionWindow(CaptionStyle())
    qtbot.addWidget(window)
    screen = window.screen()
    window.place_default(screen)
    area, g = screen.availableGeometry(), window.geometry()
    assert abs((g.x() + g.width() / 2) - (area.x() + area.width() / 2)) <= 1  # centred
    assert area.contains(g) and area.bottom() - g.bottom() <= max(12, area.height() // 40) + 1  # just above the dock
    moved = CaptionWindow(CaptionStyle(geometry=[10, 20, 400, 90]))
    qtbot.addWidget(moved)
    moved.place_default(screen)
    assert moved.geometry().topLeft().toTuple() == (10, 20)  # a place the person chose is kept


def _changed_rows(window, before) -> list[int]:
    """Image rows whose pixels differ from `before` (a grab of the same window)."""
    after = window.grab().toImage()
    return [
        y for y in range(after.height()) if any(after.pixel(x, y) != before.pixel(x, y) for x in range(after.width()))
    ]


def test_words_the_model_was_unsure_of_are_underlined_dotted(qtbot, window):
    window.resize(700, window.height())
    window.show()
    qtbot.waitExposed(window)
    said = [Word("printing", 0.0, 0.4, 0.95), Word("books", 0.4, 0.8, 0.9)]
    sure = StreamUpdate([w.confirmed(2.0) for w in said], [], 2.0, 0.2, 3.0, 0.0)
    window.show_update(sure)
    window.show_update(
        StreamUpdate(
            [Word("xylographic", 0.8, 1.4, 0.21).confirmed(2.5)], [Word("types", 1.4, 1.8, 0.3)], 2.5, 0.2, 3.0, 0.0
        )
    )
    marked = [(w.text, w.unsure) for line in window.visible_lines() for w in line]
    assert marked == [("printing", False), ("books", False), ("xylographic", True), ("types", True)]
    underlined = window.grab().toImage()
    window.caption_style.unsure_below = 0.0  # "never"
    assert not any(w.unsure for line in window.visible_lines() for w in line)
    rows = _changed_rows(window, underlined)
    assert 1 <= len(rows) <= 6 and rows[-1] - rows[0] <= 6  # only a thin line under the words went away


def _available():
    return QGuiApplication.primaryScreen().availableGeometry()


def _mouse(window, kind, local: QPoint, global_: QPoint) -> None:
    buttons = Qt.NoButton if kind == QEvent.MouseButtonRelease else Qt.LeftButton
    event = QMouseEvent(kind, QPointF(local), QPointF(global_), Qt.LeftButton, buttons, Qt.NoModifier)
    QApplication.sendEvent(window, event)


def test_the_saved_place_is_where_the_window_is_shown_and_dragged(qtbot, window):
    window.move(window.x(), window.y() - 40)  # placed while hidden: not a place it was shown at, not saved
    assert window.caption_style.geometry is None
    with qtbot.waitSignal(window.style_changed, timeout=2000):
        window.show()
    shown = window.geometry()
    assert window.caption_style.geometry == [shown.x(), shown.y(), shown.width(), shown.height()]

    # The window manager put it at (300, 200) without Qt knowing yet: the drag follows the mouse from there
    really = QPoint(300, 200)
    assert window.pos() != really
    _mouse(window, QEvent.MouseButtonPress, QPoint(30, 20), really + QPoint(30, 20))
    _mouse(window, QEvent.MouseMove, QPoint(30, 20), really + QPoint(40, 5))
    with qtbot.waitSignal(window.style_changed, timeout=2000):
        _mouse(window, QEvent.MouseButtonRelease, QPoint(40, 5), really + QPoint(40, 5))
    assert window.pos() == really + QPoint(10, -15)  # moved by the mouse's delta from where it really was
    assert window.caption_style.geometry[:2] == [310, 185]

    window.hide()
    window.move(5, 5)  # moved while hidden: the saved place stays the shown one
    qtbot.wait(500)
    assert window.caption_style.geometry[:2] == [310, 185]


def test_a_saved_place_off_every_screen_is_brought_back_to_the_bottom_centre(qtbot, isolated_dirs):
    area = _available()
    below = CaptionStyle(geometry=[area.x() + 100, area.bottom() - 10, 600, 120])  # almost all below the screen
    window = CaptionWindow(below)
    qtbot.addWidget(window)
    g = window.geometry()
    assert area.contains(g) and abs(g.center().x() - area.center().x()) <= 1 and g.bottom() > area.center().y()

    window.setGeometry(area.right() + 500, area.y(), 600, 120)  # e.g. its screen was unplugged while hidden
    window.show()
    assert area.contains(window.geometry())


def test_a_larger_font_grows_the_box_upward_and_keeps_it_on_screen(qtbot, window):
    window.show()
    bottom = window.geometry().bottom()
    menu = window.build_menu()
    font_menu = next(a.menu() for a in menu.actions() if a.text() == "Font size")
    next(a for a in font_menu.actions() if a.text() == "48 pt").trigger()
    window.caption_style.lines = 4
    window.apply_style()
    g = window.geometry()
    assert g.height() == window.preferred_height()
    assert _available().contains(g) and g.bottom() == bottom


def test_the_silence_timer_leaves_the_window_shown_while_its_menu_is_open(qtbot, window):
    window.caption_style.hide_after_s = 0.3
    window.show_update(update(["hello"]))
    seen = []

    def look_then_close():
        seen.append(window.isVisible())
        QApplication.activePopupWidget().close()

    QTimer.singleShot(1200, look_then_close)  # four times the silence limit with the menu open
    click = QContextMenuEvent(QContextMenuEvent.Mouse, QPoint(5, 5), window.mapToGlobal(QPoint(5, 5)))
    QApplication.sendEvent(window, click)  # returns once the menu is closed
    assert seen == [True] and window.isVisible()  # and the silence counts again from the menu's closing
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=3000)


def test_no_empty_box_before_the_first_words(qtbot, window):
    window.show_update(update(["earlier"]))
    assert window.isVisible()
    window.clear()  # a new session starts
    assert not window.isVisible()
    window.show_update(update(level=0.5))  # sound, no words yet
    assert not window.isVisible()
    window.show_update(update(tentative=["first"]))
    assert window.isVisible()


def side_update(speaker: str, said: str, start: float, tentative: str = "", finals=()) -> StreamUpdate:
    """One side's round of a call: its confirmed words from start, then its tail."""
    words = [Word(t, start + i * 0.4, start + i * 0.4 + 0.3, 0.9, speaker) for i, t in enumerate(said.split())]
    after = start + 0.4 * len(words)
    tail = [Word(t, after + i * 0.4, after + i * 0.4 + 0.3, 0.9, speaker) for i, t in enumerate(tentative.split())]
    return StreamUpdate(
        [w.confirmed(after) for w in words], tail, after, 0.2, 3.0, 0.1, finals=list(finals), speaker=speaker
    )


def _label_pixels(window: CaptionWindow, speaker: str) -> int:
    image = window.grab().toImage()
    colour = side_colour(speaker, QColor(window.caption_style.background_color))
    return sum(1 for x in range(0, image.width(), 2) for y in range(image.height()) if image.pixelColor(x, y) == colour)


def test_a_calls_turns_are_named_in_their_sides_colours_in_time_order(window):
    window.caption_style.lines = 4
    window.resize(900, window.preferred_height())
    window.apply_style()
    window.show()
    window.show_update(side_update("you", "Did you get it?", 0.0))
    window.show_update(side_update("you", "Good.", 5.0, "Thanks"))  # your next turn, before Them's words come
    window.show_update(side_update("them", "Yes, this morning.", 2.0, "It"))
    assert window.text() == "You: Did you get it? Them: Yes, this morning. It You: Good. Thanks"
    assert [line[0].text for line in window.visible_lines()] == ["You:", "Them:", "You:"]  # each turn on its line
    words = [w for line in window.visible_lines() for w in line]
    assert [(w.text, w.confirmed) for w in words if not w.label][-2:] == [("Good.", True), ("Thanks", False)]
    assert all(_label_pixels(window, s) > 10 for s in ("you", "them"))
    # Them's final record counts Them's confirmed words: it replaces theirs, not yours.
    final = FinalEvent(
        0, 3, [Word(t, 2.0, 2.3, 0.9, "them") for t in ("Yes,", "this", "morning!")], 3.5, speaker="them"
    )
    window.show_update(StreamUpdate([], [], 3.6, 0.2, 3.0, finals=[final], speaker="them"))
    assert window.text() == "You: Did you get it? Them: Yes, this morning! You: Good. Thanks"


def test_only_them_shows_the_other_side_alone_and_your_words_do_not_bring_the_window_back(qtbot, isolated_dirs):
    settings = AppSettings()
    settings.caption.only_them = True
    window = CaptionWindow(settings.caption)
    qtbot.addWidget(window)
    window.show_update(side_update("you", "Did you get it?", 0.0))
    assert not window.isVisible() and window.text() == ""
    window.show_update(side_update("them", "Yes, this morning.", 2.0))
    assert window.isVisible() and window.text() == "Yes, this morning."  # one side: no names
    assert _label_pixels(window, "them") == 0
    settings.caption.only_them = False  # Settings ▸ Captions: both sides
    window.apply_style()
    assert window.text() == "You: Did you get it? Them: Yes, this morning."


def test_a_one_source_session_names_no_side_even_with_only_them(window):
    window.caption_style.only_them = True
    window.apply_style()
    window.show_update(update(["Printing,", "then,"], ["for"]))
    assert window.text() == "Printing, then, for"
    assert not any(w.label for line in window.visible_lines() for w in line)


def test_the_menu_sets_only_them(window):
    only_them = next(a for a in window.build_menu().actions() if a.text() == "In a call, only Them")
    only_them.trigger()
    assert window.caption_style.only_them and window.held.only_them
