"""Writing files so that a full disk or a crash never leaves a half-written file behind."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from engine.errors import DiskFullError, WhisperFlowError

_DISK_FULL = {errno.ENOSPC, errno.EDQUOT}


def is_disk_full(error: OSError) -> bool:
    """Whether an OSError means no space is left (full disk or exhausted quota)."""
    return error.errno in _DISK_FULL


def fsync_dir(path: Path) -> None:
    """Make a directory's entries (new or renamed files) durable; a no-op where directories cannot be opened."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_file_atomic(path: str | os.PathLike, data: bytes) -> Path:
    """Write data to path through a synced temporary file renamed into place.

    The old file (if any) stays intact unless the new one was written completely. Raises DiskFullError
    when the disk is full and WhisperFlowError for other failures (missing folder, no permission, ...).
    """
    path = Path(path)
    tmp: Path | None = None
    try:
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        tmp = Path(name)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        tmp = None
        fsync_dir(path.parent)
    except OSError as e:
        raise write_error(path, e) from e
    finally:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
    return path


def write_error(path: Path, error: OSError) -> WhisperFlowError:
    """The user-facing error for a failed write of path."""
    if is_disk_full(error):
        return DiskFullError(
            f"Cannot save {path.name}: the disk holding {path.parent} is full. Free some space "
            "or choose another folder; nothing has been lost."
        )
    if isinstance(error, FileNotFoundError):
        return WhisperFlowError(f"Cannot save {path.name}: the folder {path.parent} does not exist.")
    if isinstance(error, PermissionError):
        return WhisperFlowError(
            f"Cannot save {path.name}: no permission to write in {path.parent}. Choose another folder."
        )
    return WhisperFlowError(f"Cannot save {path}: {error.strerror or error}.")
