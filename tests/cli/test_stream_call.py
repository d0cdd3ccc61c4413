"""`whisperflow stream --you … --them …`: bad input gets one clear line before anything is loaded or lost."""

import pytest
from testdata import DATA

from cli.main import main

THEM = str(DATA / "LJ001-0008.wav")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--you", THEM, "--them", THEM], "--you and --them are the same source"),
        (["--you", str(DATA / "no-such.wav"), "--them", THEM], "no such audio file"),
        (["--you", str(DATA / "LJ001-0003.wav")], "a call needs both sides"),
        (["--you", str(DATA / "LJ001-0003.wav"), "--them", THEM, str(DATA / "LJ001-0004.wav")], "not both"),
        (["--you", str(DATA / "LJ001-0003.wav"), "--them", THEM, "--pace", "replay:x.jsonl"], "cannot replay"),
    ],
)
def test_bad_call_input_is_one_clear_line(capsys, args, says):
    assert main(["stream", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and says in err[0]
