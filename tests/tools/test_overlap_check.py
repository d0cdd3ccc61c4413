"""The overlap check times the accelerator's encodes alone and beside numpy decoding; without a GPU its executor
is a CPU stream, and every measurement still runs."""

import re

from tools.overlap_check import main

ROW = re.compile(r"^(.+?)\s+median\s+([\d.]+) ms\s+max\s+([\d.]+) ms\s+n (\d+)$", re.M)


def test_the_overlap_check_times_encodes_alone_and_beside_numpy_decoding(tiny_model, capsys):
    assert main(["--config", str(tiny_model.path / "config.json")]) == 0
    rows = ROW.findall(capsys.readouterr().out)
    assert [name for name, *_ in rows] == [
        "encode on the executor, alone",
        "numpy beam-5 step, alone",
        "encode while numpy decodes (switch interval 5 ms)",
        "numpy beam-5 step, meanwhile",
        "encode while numpy decodes (switch interval 0.1 ms)",
        "numpy beam-5 step, meanwhile",
        "MLX beam-5 step on Device(cpu, 0)",
    ]
    assert all(0 < float(median) <= float(longest) and int(n) > 0 for _, median, longest, n in rows)
