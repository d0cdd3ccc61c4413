"""The start-up check runs its stages in a fresh process, in order, each with a time and the memory after it."""

import re
import sys

from tools.startup_check import main

STAGE = re.compile(r"^(.+?)\s+([\d.]+) ms\s+at\s+([\d.]+) s\s+RSS\s+(\S+) MB\s+peak\s+(\d+) MB$", re.M)


def test_the_stages_run_in_a_fresh_process_and_each_prints_its_time_and_memory(tiny_model, capfd):
    assert main(["--config", str(tiny_model.path / "config.json")]) == 0
    out = capfd.readouterr().out
    stages = STAGE.findall(out)
    assert [name for name, *_ in stages] == [
        "engine start-up (the system BLAS)",
        "import numpy",
        "import mlx.core",
        "first operation on Device(cpu, 0)",
        "first matmul",
        "import the encoder and decoder",
        "build the network, random float32 weights",
        "first encode, 10 s",
        "the same again",
        "19 other lengths, first encodes",
        "19 other lengths, the same again",
        "decoder (numpy): the prompt",
        "decoder: first beam-5 step",
        "decoder: 30 more steps",
    ]
    ends = [float(at) for _, _, at, _, _ in stages]
    assert ends == sorted(ends) and all(float(ms) >= 0 for _, ms, *_ in stages)
    # a fresh process: it starts with none of this test process's memory, and loading weights grows it
    peaks = [int(peak) for *_, peak in stages]
    assert peaks == sorted(peaks) and peaks[0] < 100 < peaks[-1]
    assert len(re.findall(r"ms each:( \d+){19}$", out, re.M)) == 2
    assert "MLX memory: active" in out
    if sys.platform == "linux":
        assert "resident MB by mapping:" in out and "libmlx.so" in out
