"""The final-pass study replays one recorded stream's utterances into final passes decoded other ways."""

import pytest
from testdata import DATA

from tools.final_pass_study import Variant, main


def test_a_variant_is_named_context_beam_and_padding():
    assert Variant.parse("wide=20:1:hush") == Variant("wide", 20.0, 1, "hush")
    assert Variant.parse("all=20:5:hush:guided:confirmed:every").sure == float("inf")
    assert Variant.parse("half=20:5:hush:guided:confirmed:sure=0.5") == Variant(
        "half", 20.0, 5, "hush", True, True, sure=0.5
    )
    assert Variant.parse("cover=20:5:hush:guided:confirmed:sure=0.6:uncovered=0.3") == Variant(
        "cover", 20.0, 5, "hush", True, True, sure=0.6, uncovered=0.3
    )
    with pytest.raises(SystemExit):
        Variant.parse("odd=20:1:none")


def test_the_study_prints_each_variants_wer_beside_confirmed_and_offline(tmp_path, capsys):
    manifest = tmp_path / "manifest.tsv"
    reference = "printing then for our purpose may be considered as the art of making books by means of movable types"
    manifest.write_text(f"file\tduration_s\tkind\treference\n{DATA / 'LJ001-0009.wav'}\t7.55\tshort\t{reference}\n")
    argv = ["--manifest", str(manifest), "--kind", "short", "--out", str(tmp_path / "out")]
    assert main([*argv, "--variant", "none=0:5:pad30", "wide=20:1:pad30"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert "| kind | confirmed | offline | none | wide |" in table
    pooled = next(line for line in table if line.startswith("| pooled |"))
    assert all(float(cell.rstrip(" %")) < 15 for cell in pooled.split("|")[2:-1])
    assert any(line.startswith("| final pass CPU s per audio s |") for line in table)
    assert list((tmp_path / "out").glob("*.pkl"))  # the recording is kept for the next run
