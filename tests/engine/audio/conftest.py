"""A short two-sided call built from the test clips: Them first, then you over Them's next words, then each alone."""

import pytest
from testdata import DATA

from tools.call.fixture import Part, build_call, write_call

PARTS = [
    Part("them", "LJ001-0003.wav", 0.0, 5.1, text="For although the Chinese took impressions from wood blocks"),
    Part("you", "acoustic_corpus_10s.wav", 1.0, 3.72, text="this is the acoustic corpus i'm talking pretty fast here"),
    Part("them", "LJ001-0008.wav", text="has never been surpassed."),
    Part("you", "LJ001-0004.wav", text="produced the block books, which were the immediate predecessors of the true"),
]


@pytest.fixture(scope="package")
def call(tmp_path_factory):
    """The built call (its tracks, references and echo delay) and the folder its wav files are written to."""
    built = build_call(PARTS, DATA, seed=1)
    out = tmp_path_factory.mktemp("call")
    write_call(built, out)
    return built, out
