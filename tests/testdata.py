"""Where the tests' files are: the repository, and the small real clips in tests/data (see its ATTRIBUTION.md)."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
