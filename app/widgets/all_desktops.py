"""Ask the window system to show a window on every virtual desktop (X11) or Space (macOS).

Qt has no window flag for this. On X11 the EWMH way is ``_NET_WM_DESKTOP = 0xFFFFFFFF``, set on the
window before it is mapped and sent to the root window as a client message once it is. On macOS the
NSWindow's collection behaviour gets "can join all spaces" (through pyobjc, when installed). Wayland
gives applications no such control; there the compositor decides.
"""

from __future__ import annotations

import ctypes
import ctypes.util

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

ALL_DESKTOPS = 0xFFFFFFFF
_CLIENT_MESSAGE = 33
_XA_CARDINAL = 6
_SUBSTRUCTURE_MASKS = (1 << 19) | (1 << 20)
# NSWindowCollectionBehaviorCanJoinAllSpaces | Stationary | FullScreenAuxiliary
_MAC_ALL_SPACES = (1 << 0) | (1 << 4) | (1 << 8)


class _XClientMessageEvent(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("serial", ctypes.c_ulong),
        ("send_event", ctypes.c_int),
        ("display", ctypes.c_void_p),
        ("window", ctypes.c_ulong),
        ("message_type", ctypes.c_ulong),
        ("format", ctypes.c_int),
        ("data", ctypes.c_long * 5),
        ("_pad", ctypes.c_long * 19),
    ]


def _x11_all_desktops(window_id: int) -> bool:
    path = ctypes.util.find_library("X11")
    if path is None:
        return False
    x11 = ctypes.cdll.LoadLibrary(path)
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XInternAtom.restype = ctypes.c_ulong
    x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    x11.XChangeProperty.argtypes = [
        ctypes.c_void_p,
        ctypes.c_ulong,
        ctypes.c_ulong,
        ctypes.c_ulong,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_void_p,
        ctypes.c_int,
    ]
    x11.XDefaultRootWindow.restype = ctypes.c_ulong
    x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    x11.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.c_void_p]
    x11.XFlush.argtypes = [ctypes.c_void_p]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    display = x11.XOpenDisplay(None)
    if not display:
        return False
    try:
        atom = x11.XInternAtom(display, b"_NET_WM_DESKTOP", 0)
        value = (ctypes.c_long * 1)(ALL_DESKTOPS)
        x11.XChangeProperty(display, window_id, atom, _XA_CARDINAL, 32, 0, value, 1)
        event = _XClientMessageEvent(
            type=_CLIENT_MESSAGE, send_event=1, display=display, window=window_id, message_type=atom, format=32
        )
        event.data[0], event.data[1] = ALL_DESKTOPS, 1  # desktop, source: an application
        x11.XSendEvent(display, x11.XDefaultRootWindow(display), 0, _SUBSTRUCTURE_MASKS, ctypes.byref(event))
        x11.XFlush(display)
    finally:
        x11.XCloseDisplay(display)
    return True


def _mac_all_spaces(widget: QWidget) -> bool:
    try:
        import objc  # pyobjc, present in the macOS bundle
    except ImportError:
        return False
    view = objc.objc_object(c_void_p=int(widget.winId()))
    window = view.window()
    window.setCollectionBehavior_(window.collectionBehavior() | _MAC_ALL_SPACES)
    return True


def show_on_all_desktops(widget: QWidget) -> bool:
    """Make widget's window appear on every desktop/Space; False where the platform offers no way."""
    platform = QGuiApplication.platformName()
    if platform == "xcb":
        return _x11_all_desktops(int(widget.winId()))
    if platform == "cocoa":
        return _mac_all_spaces(widget)
    return False
