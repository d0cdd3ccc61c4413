"""The power plot opens on sensible axes: 0–5 W while the computer idles (never a tiny range magnified), time in
words, and no scale factor on any axis."""

from __future__ import annotations

import pytest

from app.widgets.power_plot import IDLE_WATTS, Y_PADDING, PowerPlot, watts_ceiling


@pytest.fixture()
def plot(qtbot):
    widget = PowerPlot()  # never shown: no sampler runs, samples are fed by hand
    qtbot.addWidget(widget)
    return widget


def power_range(plot: PowerPlot) -> list[float]:
    """The power axis's range without its padding (room for the end labels)."""
    low, high = plot.power_axes.viewRange()[1]
    pad = (high - low) * Y_PADDING / (1 + 2 * Y_PADDING)
    return [low + pad, high - pad]


def test_an_idle_computer_sits_low_on_a_0_to_5_watt_scale(plot):
    assert power_range(plot) == pytest.approx([0, IDLE_WATTS])
    for watts in (0.0, 0.4, 0.3, 0.4, 0.3):
        plot.add_sample(watts, 2.0)
    assert power_range(plot) == pytest.approx([0, 5])


def test_the_scale_grows_with_the_draw_in_steps_of_5_watts(plot):
    plot.add_sample(11.6, 50.0)
    assert power_range(plot) == pytest.approx([0, 15])
    assert watts_ceiling([float("nan")]) == IDLE_WATTS


def test_the_time_axis_reads_in_words_without_a_scale_factor(plot):
    for _ in range(5):
        plot.add_sample(0.002, 1.0)  # tiny values once made pyqtgraph show "(x0.001)"
    for axes in (plot.power_axes, plot.cpu_axes):
        for side in ("left", "bottom"):
            axis = axes.getAxis(side)
            assert axis.labelString().find("x0.001") < 0 and not axis.autoSIPrefix
        labels = [label for _value, label in axes.getAxis("bottom")._tickLevels[0]]
        assert labels[0] == "90 s ago" and labels[-1] == "now"
    assert plot.power_axes.titleLabel.text.startswith("Power used (watts)")
