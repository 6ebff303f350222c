#!/usr/bin/python3
"""An independent check that some elements of an app move on their own, for the e2e
oracle: argv[1] the app's pid, argv[2] an AT-SPI role name. Walks the app once asking
each element only its role (as atspi_nth.py does), then reads the extents of those with
that role again and again, up to argv[3] seconds, with no input sent; prints {"count":
how many have the role, "moving": how many were seen at two different places}.
"""
import json
import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the helpers
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyatspi  # noqa: E402
from atspi_read import SKIP_BELOW, find_app  # noqa: E402


def extents(acc):
    try:
        e = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        return (e.x, e.y, e.width, e.height)
    except Exception:
        return None


def main():
    pid, role, seconds = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
    app = find_app(pid)
    if app is None:
        print(json.dumps({"error": f"no app with pid {pid}"}))
        return 2
    found = []
    stack = [app]
    while stack:
        acc = stack.pop()
        try:
            name = acc.getRoleName()
        except Exception:
            continue
        if name == role:
            found.append(acc)
        if name in SKIP_BELOW:
            continue
        try:
            kids = [acc.getChildAtIndex(i) for i in range(acc.childCount)]
        except Exception:
            continue
        stack.extend(k for k in reversed(kids) if k is not None)
    first = [extents(a) for a in found]
    moved = set()
    end = time.monotonic() + seconds
    while not moved and time.monotonic() < end:
        time.sleep(0.05)
        for i, a in enumerate(found):
            now = extents(a)
            if now is not None and first[i] is not None and now != first[i]:
                moved.add(i)
    print(json.dumps({"count": len(found), "moving": len(moved)}))
    return 0


sys.exit(main())
