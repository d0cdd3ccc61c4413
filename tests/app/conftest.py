"""The app's tests run as the app does: cyclic garbage is collected on the GUI thread only."""

import pytest

from app.gui_collector import GuiThreadCollector


@pytest.fixture(scope="module", autouse=True)
def gui_thread_collector(qapp):
    collector = GuiThreadCollector(qapp)
    collector.start()
    yield collector
    collector.stop()
    collector.deleteLater()
