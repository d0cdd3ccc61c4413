"""NVIDIA GPUs through NVML (libnvidia-ml, shipped with the driver), called with ctypes.

Uses each GPU's total-energy counter (mJ since the driver loaded; Volta and newer).
Without a driver, or on older GPUs, the meter is unavailable.
"""

from __future__ import annotations

import ctypes
import sys

from engine.power.meter import CounterMeter, PowerUnavailable

LIBRARY = "nvml.dll" if sys.platform == "win32" else "libnvidia-ml.so.1"
NVML_SUCCESS = 0


class Nvml:
    """The few NVML calls the meter needs; raises PowerUnavailable on any failure."""

    def __init__(self, library: str = LIBRARY):
        try:
            self.lib = ctypes.CDLL(library)
        except OSError as exc:
            raise PowerUnavailable(f"NVML: {library} not found (no NVIDIA driver)") from exc
        self.call("nvmlInit_v2")

    def call(self, name: str, *args) -> None:
        code = getattr(self.lib, name)(*args)
        if code != NVML_SUCCESS:
            self.lib.nvmlErrorString.restype = ctypes.c_char_p
            message = self.lib.nvmlErrorString(code).decode(errors="replace")
            raise PowerUnavailable(f"NVML: {name} failed: {message}")

    def handles(self) -> list[ctypes.c_void_p]:
        count = ctypes.c_uint()
        self.call("nvmlDeviceGetCount_v2", ctypes.byref(count))
        handles = []
        for i in range(count.value):
            handle = ctypes.c_void_p()
            self.call("nvmlDeviceGetHandleByIndex_v2", ctypes.c_uint(i), ctypes.byref(handle))
            handles.append(handle)
        return handles

    def name(self, handle: ctypes.c_void_p) -> str:
        buf = ctypes.create_string_buffer(96)
        self.call("nvmlDeviceGetName", handle, buf, ctypes.c_uint(len(buf)))
        return buf.value.decode(errors="replace")

    def energy_mj(self, handle: ctypes.c_void_p) -> int:
        value = ctypes.c_ulonglong()
        self.call("nvmlDeviceGetTotalEnergyConsumption", handle, ctypes.byref(value))
        return value.value


class NvmlMeter(CounterMeter):
    """Sum of all NVIDIA GPUs' energy counters."""

    covers = "gpu"

    def __init__(self, nvml: Nvml):
        super().__init__()
        self.nvml = nvml
        self.gpus = nvml.handles()
        if not self.gpus:
            raise PowerUnavailable("NVML: no NVIDIA GPU")
        self.source = f"NVML ({', '.join(nvml.name(h) for h in self.gpus)})"

    def energy_joules(self) -> float:
        return sum(self.nvml.energy_mj(h) for h in self.gpus) / 1000.0


def open_nvml(library: str = LIBRARY) -> NvmlMeter:
    """An NVML meter; PowerUnavailable says why not (no driver, no GPU, no energy counter)."""
    meter = NvmlMeter(Nvml(library))
    meter.energy_joules()
    return meter
