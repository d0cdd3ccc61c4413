"""The calibration panel shows the saved setting in a person's words and why calibration chose it."""

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
