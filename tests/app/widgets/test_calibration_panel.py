"""The calibration panel shows the saved setting in a person's words and why calibration chose it."""

from PySide6.QtCore import Qt

from app.widgets.calibration_panel import CalibrationPanel
from app.workers.model_worker import ModelCache
from engine.stream.profiler import choose
from engine.stream.profiles import Allocation, CalibrationRow, Profile, machine_id, save_profile


def test_the_panel_says_which_setting_was_chosen_and_why(qtbot, isolated_dirs):
    rows = [
        CalibrationRow(Allocation(False, 2), 0.79, 1.2, 0.05, 1.24, 11.6, "test meter"),
        CalibrationRow(Allocation(False, 1), 0.83, 1.2, 0.05, 0.86, 7.8, "test meter"),
    ]
    choice = choose(rows)
    save_profile(Profile(machine_id(), "tiny.en", choice.allocation, choice.rows, reason=choice.reason))
    panel = CalibrationPanel(ModelCache(), lambda: "tiny.en")
    qtbot.addWidget(panel)
    summary = panel.summary.text()
    assert "<b>one step at a time, 1 thread</b>" in summary
    assert (
        "Why: one step at a time, 1 thread: 0.83 s, within 10 % of the fastest (0.79 s) at 7.8 W instead of 11.6 W."
        in summary
    )
    assert [panel.table.item(r, 6).text() for r in range(panel.table.rowCount())] == ["", "✔"]


def test_the_table_shows_every_row_whole_with_plain_headers(qtbot, isolated_dirs):
    allocations = [Allocation(False, n) for n in (1, 2, 4)] + [
        Allocation(True, 2, 4, "cpu"),
        Allocation(True, 2, 4, "gpu"),
    ]
    rows = [CalibrationRow(a, 0.8 + i / 100, 1.1, 0.04, 0.9, 8.0, "test meter") for i, a in enumerate(allocations)]
    choice = choose(rows)
    save_profile(Profile(machine_id(), "tiny.en", choice.allocation, choice.rows, reason=choice.reason))
    panel = CalibrationPanel(ModelCache(), lambda: "tiny.en")
    qtbot.addWidget(panel)
    panel.resize(720, 600)  # the settings pane's width
    panel.show()
    panel.details_button.click()
    qtbot.waitExposed(panel)
    table = panel.table
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert "9 in 10 within" not in headers and "CPU s per audio s" not in headers
    assert all(table.horizontalHeaderItem(c).toolTip() for c in range(table.columnCount()))
    shown = sum(table.rowHeight(r) for r in range(table.rowCount()))
    assert table.viewport().height() >= shown  # every row in sight: nothing to scroll to
    metrics = table.fontMetrics()
    for r in range(table.rowCount()):  # each setting's words fit their cell, wrapped
        text = table.item(r, 0).text()
        needed = metrics.boundingRect(0, 0, table.columnWidth(0) - 8, 1000, Qt.TextWordWrap, text).height()
        assert needed <= table.rowHeight(r), text
