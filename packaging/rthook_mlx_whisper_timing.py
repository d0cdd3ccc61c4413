# PyInstaller runtime hook: mlx_whisper/__init__.py imports mlx_whisper.transcribe, which imports
# mlx_whisper.timing, which imports numba (and llvmlite) and scipy.signal at module level. The engine never calls
# mlx-whisper's own transcribe or timing (it times words in engine/decoder/word_timing.py), so the bundle leaves
# those libraries out and answers `import mlx_whisper.timing` with engine/decoder/timing_helpers.py, the numpy
# pieces word timing needs.
import importlib
import importlib.abc
import importlib.util
import sys


class _EngineTiming(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    NAME = "mlx_whisper.timing"

    def find_spec(self, fullname, path, target=None):
        return importlib.util.spec_from_loader(fullname, self) if fullname == self.NAME else None

    def create_module(self, spec):
        return importlib.import_module("engine.decoder.timing_helpers")

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _EngineTiming())
