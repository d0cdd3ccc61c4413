"""Starting the app: its log file lies in the user log folder and records what the window showed."""

import pytest

from app.main import WhisperFlowApp, start_logging

pytestmark = pytest.mark.usefixtures("restore_logging")


def test_the_app_logs_to_a_file_in_the_log_folder_what_it_shows(qtbot, isolated_dirs, tiny_model):
    path = start_logging()
    assert path.parent == isolated_dirs / "log"
    app = WhisperFlowApp(preloaded=(tiny_model,))
    qtbot.addWidget(app.window)
    app.window.show_error("Choose where the sound comes from first.")
    app.window.show_notice("The voice-activity model is missing: every round runs.")
    lines = path.read_text().splitlines()
    assert "INFO app.main: WhisperFlow " in lines[0]
    assert lines[-2].endswith("WARNING app.windows.main_window: error shown: Choose where the sound comes from first.")
    assert lines[-1].endswith(
        "INFO app.windows.main_window: notice shown: The voice-activity model is missing: every round runs."
    )
    app.window.quit()


@pytest.mark.parametrize("level, logged", [("WARNING", False), ("debug", True), ("loud", True)])
def test_the_log_file_takes_its_level_from_the_environment(isolated_dirs, monkeypatch, level, logged):
    monkeypatch.setenv("WHISPERFLOW_LOG_LEVEL", level)
    path = start_logging()
    assert ("INFO app.main: WhisperFlow" in path.read_text()) == logged  # an unknown level is info
