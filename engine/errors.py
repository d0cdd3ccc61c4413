"""User-facing errors: each message says what went wrong and what to do about it."""


class WhisperFlowError(Exception):
    """Base class for errors shown to a person as they are."""


class ModelError(WhisperFlowError):
    """A model is unknown, missing, partial or corrupt."""


class AudioError(WhisperFlowError):
    """An audio file cannot be read or decoded."""


class DeviceError(WhisperFlowError):
    """An audio device is missing, busy or was unplugged."""


class DiskFullError(WhisperFlowError):
    """There is no space left to write."""


class SettingsError(WhisperFlowError):
    """An option or setting is outside the range WhisperFlow accepts."""
