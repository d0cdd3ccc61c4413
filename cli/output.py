"""Output files of the command line: checked before anything is loaded, never one of the inputs,
and a write error never ends captioning (the file keeps what it already holds)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from engine.errors import WhisperFlowError
from engine.runtime.safe_write import is_disk_full


def check_output_path(path: str | None, inputs: list[str | None], flag: str = "--jsonl") -> None:
    """Raise WhisperFlowError unless path ('-' is stdout) can be written and is none of the inputs."""
    if path is None or path == "-":
        return
    out = Path(path)
    if out.is_dir():
        raise WhisperFlowError(f"{flag} {path} is a folder; give a file name, e.g. {out / 'captions.jsonl'}")
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise WhisperFlowError(f"{flag} {path}: the folder {parent} does not exist; create it first")
    for given in inputs:
        if given is None or given == "-":
            continue
        same = out.exists() and Path(given).exists() and os.path.samefile(out, given)
        if same or out.resolve() == Path(given).resolve():
            raise WhisperFlowError(
                f"{flag} {path} is the input file; writing there would destroy it. Choose another output file."
            )
    if out.exists() and not os.access(out, os.W_OK):
        raise WhisperFlowError(f"{flag} {path}: the file is read-only")
    if not out.exists() and not os.access(parent, os.W_OK | os.X_OK):
        raise WhisperFlowError(f"{flag} {path}: cannot write in the folder {parent} (no permission)")


class JsonlOutput:
    """JSON lines to a file (or stdout for '-'): each write is flushed, `sync()` makes it durable (fsync).

    On a write error (full disk, removed drive) it says so once on stderr, drops the partial line,
    and ignores further writes: captions go on, and the file keeps every complete line it holds.
    """

    def __init__(self, path: str, warn=None):
        self.path = path
        self._warn = warn or (lambda message: print(message, file=sys.stderr, flush=True))
        self.failed = False
        self._good = 0
        if path == "-":
            self._fd = None
            return
        try:
            self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        except OSError as exc:
            raise WhisperFlowError(f"cannot write {path}: {exc.strerror}") from exc

    def write(self, record: dict) -> None:
        line = json.dumps(record, ensure_ascii=False) + "\n"
        if self._fd is None:
            sys.stdout.write(line)
            sys.stdout.flush()
            return
        if self.failed:
            return
        data = line.encode("utf-8")
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]
            self._good += len(data)
        except OSError as exc:
            self._fail(exc)

    def sync(self) -> None:
        if self._fd is None or self.failed:
            return
        try:
            os.fsync(self._fd)
        except OSError as exc:
            self._fail(exc)

    def _fail(self, exc: OSError) -> None:
        self.failed = True
        try:
            os.ftruncate(self._fd, self._good)  # no half line at the end
        except OSError:
            pass
        reason = "the disk is full" if is_disk_full(exc) else exc.strerror or str(exc)
        self._warn(
            f"warning: stopped writing {self.path} ({reason}); captions continue here, and the file "
            f"keeps the {self._good} bytes already written"
        )

    def close(self) -> None:
        if self._fd is not None:
            self.sync()
            try:
                os.close(self._fd)
            except OSError:
                pass
            self._fd = None

    def __enter__(self) -> JsonlOutput:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
