#!/usr/bin/python3
"""A person at the keyboard and mouse, for recording tests: real input events sent through
the X server's XTest extension from a process of its own (not through axpage).

usage: person.py click X Y | type TEXT | key KEYSYM
Each command moves/presses/releases like a hand would (a short pause between events, so
the toolkit sees separate presses) and exits 0 once the server has taken the events.
"""
import ctypes
import ctypes.util
import sys
import time

x11 = ctypes.CDLL(ctypes.util.find_library("X11"))
xtst = ctypes.CDLL(ctypes.util.find_library("Xtst"))
x11.XOpenDisplay.restype = ctypes.c_void_p
x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
x11.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
x11.XKeysymToKeycode.restype = ctypes.c_ubyte
x11.XStringToKeysym.argtypes = [ctypes.c_char_p]
x11.XStringToKeysym.restype = ctypes.c_ulong
x11.XKeycodeToKeysym.argtypes = [ctypes.c_void_p, ctypes.c_ubyte, ctypes.c_int]
x11.XKeycodeToKeysym.restype = ctypes.c_ulong
x11.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
xtst.XTestFakeMotionEvent.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_ulong]
xtst.XTestFakeButtonEvent.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong]
xtst.XTestFakeKeyEvent.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_ulong]

display = x11.XOpenDisplay(None)
if not display:
    sys.exit("person.py: cannot open the X display")

PAUSE = 0.03


def sync():
    x11.XSync(display, 0)
    time.sleep(PAUSE)


def click(x, y):
    xtst.XTestFakeMotionEvent(display, -1, x, y, 0)
    sync()
    xtst.XTestFakeButtonEvent(display, 1, 1, 0)
    sync()
    xtst.XTestFakeButtonEvent(display, 1, 0, 0)
    sync()


def tap(keysym_name):
    sym = x11.XStringToKeysym(keysym_name.encode())
    code = x11.XKeysymToKeycode(display, sym)
    if code == 0:
        sys.exit(f"person.py: no key for {keysym_name}")
    shift = x11.XKeycodeToKeysym(display, code, 0) != sym
    shift_code = x11.XKeysymToKeycode(display, x11.XStringToKeysym(b"Shift_L"))
    if shift:
        xtst.XTestFakeKeyEvent(display, shift_code, 1, 0)
    xtst.XTestFakeKeyEvent(display, code, 1, 0)
    sync()
    xtst.XTestFakeKeyEvent(display, code, 0, 0)
    if shift:
        xtst.XTestFakeKeyEvent(display, shift_code, 0, 0)
    sync()


NAMES = {" ": "space", "-": "minus", ".": "period", "!": "exclam", "+": "plus", "=": "equal", "*": "asterisk", "/": "slash", "@": "at", "_": "underscore"}

command = sys.argv[1]
if command == "click":
    click(int(sys.argv[2]), int(sys.argv[3]))
elif command == "type":
    for ch in sys.argv[2]:
        tap(NAMES.get(ch, ch))
elif command == "key":
    tap(sys.argv[2])
else:
    sys.exit(f"person.py: unknown command {command}")
x11.XCloseDisplay(display)
