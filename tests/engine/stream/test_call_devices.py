"""A call from real PulseAudio devices: a null sink's monitor is the computer's audio (Them), the virtual microphone
is You, each playing a different speaker; the words come out under the right labels."""

from pulse_mic import VirtualMic
from testdata import ACOUSTIC_FIRST_SENTENCE_S, DATA, clip_start

from engine.audio.devices import PULSE_PREFIX
from engine.audio.sources import MicrophoneSource
from engine.stream.call import CallSide, run_call
from engine.stream.config import StreamConfig, build_processor

THEM_SINK = "wf_them"
LISTEN_S = 5.0  # the clips (3.7 s and 1.8 s) and time for their players to start


def _spelled(words, speaker):
    return {"".join(c for c in w.text.lower() if c.isalnum()) for w in words if w.speaker == speaker}


def test_a_call_from_a_monitor_and_a_microphone_labels_each_speaker(tiny_model, virtual_mic: VirtualMic, tmp_path):
    virtual_mic.load_module("module-null-sink", f"sink_name={THEM_SINK}", "norewinds=1")
    sources = {
        "you": MicrophoneSource(f"{PULSE_PREFIX}{virtual_mic.mic}", max_seconds=LISTEN_S),
        "them": MicrophoneSource(f"{PULSE_PREFIX}{THEM_SINK}.monitor", max_seconds=LISTEN_S),
    }
    sides = [CallSide(k, build_processor(tiny_model, StreamConfig(policy="flow"))[0], s) for k, s in sources.items()]
    you = clip_start("acoustic_corpus_10s.wav", ACOUSTIC_FIRST_SENTENCE_S, tmp_path)
    words = []

    def started():
        virtual_mic.play(you)  # into the microphone's sink
        virtual_mic.play(DATA / "LJ001-0008.wav", THEM_SINK)  # "has never been surpassed."

    try:
        dones = run_call(sides, pace="realtime", on_update=lambda u: words.extend(u.confirmed), on_started=started)
    finally:
        for side in sides:
            side.processor.close()
    assert {"surpassed", "never"} <= _spelled(words, "them")
    assert {"acoustic", "corpus"} <= _spelled(words, "you")
    assert not {"surpassed", "never"} & _spelled(words, "you") and not {"acoustic", "corpus"} & _spelled(words, "them")
    assert not any(d.error for d in dones.values())
