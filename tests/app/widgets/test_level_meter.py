"""The level meter reads as a person expects: empty while there is no sound, filled as far as the sound is loud."""

from __future__ import annotations

from PySide6.QtGui import QPalette

from app.widgets.level_meter import LevelMeter, level_colour, level_fraction


def trough_colours(meter: LevelMeter) -> list[str]:
    """The colours along the meter's middle row, inside its border, left to right."""
    image = meter.grab().toImage()
    y = image.height() // 2
    return [image.pixelColor(x, y).name() for x in range(3, image.width() - 3)]


def test_an_idle_meter_is_an_empty_trough_and_sound_fills_it_from_the_left(qtbot):
    meter = LevelMeter()
    qtbot.addWidget(meter)
    meter.resize(160, 12)
    empty = meter.palette().color(QPalette.Base).name()
    assert set(trough_colours(meter)) == {empty}  # no sound: nothing drawn in it, not a dark (full-looking) bar

    meter.set_level(0.05)  # speech at about -26 dBFS
    green = level_colour(level_fraction(0.05)).name()
    colours = trough_colours(meter)
    filled = colours.index(empty)
    assert set(colours[: filled - 2]) == {green} and filled / len(colours) > 0.4
    assert set(colours[filled + 2 :]) == {empty}  # past the level and its peak mark

    meter.reset()  # the session ended
    assert set(trough_colours(meter)) == {empty}
