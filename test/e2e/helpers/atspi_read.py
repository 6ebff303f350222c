#!/usr/bin/python3
"""An independent reader of an app's accessibility tree, for the e2e scenarios' oracle.

It uses pyatspi (libatspi), not axpage's own D-Bus client, so a test can check what axpage
reports against what the app exposes. Prints one JSON array: every element of the app with
pid argv[1] (depth first, at most 4000), each {"role", "name", "states", "extents"
[x, y, w, h], "text" (Text interface, first 2000 chars), "value" (Value interface)}.
Tree views' cells are skipped (--cells keeps them): they are created on demand and can be
many.
"""
import json
import sys

import pyatspi

MAX = 4000
# Containers whose descendants (tree views' cells) are made on demand and can be many.
SKIP_BELOW = ("table", "tree table", "tree")


def find_app(pid):
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        app = desktop.getChildAtIndex(i)
        try:
            if app is not None and app.get_process_id() == pid:
                return app
        except Exception:
            continue
    return None


def describe(acc):
    out = {"role": acc.getRoleName(), "name": acc.name or ""}
    try:
        states = acc.getState()
        out["states"] = sorted(pyatspi.stateToString(s) for s in states.getStates())
    except Exception:
        out["states"] = []
    try:
        e = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        out["extents"] = [e.x, e.y, e.width, e.height]
    except Exception:
        pass
    try:
        t = acc.queryText()
        out["text"] = t.getText(0, min(t.characterCount, 2000))
        out["caret"] = t.caretOffset
    except Exception:
        pass
    try:
        out["value"] = acc.queryValue().currentValue
    except Exception:
        pass
    return out


def main():
    pid = int(sys.argv[1])
    cells = "--cells" in sys.argv
    app = find_app(pid)
    if app is None:
        print(json.dumps({"error": f"no app with pid {pid}"}))
        return 2
    found = []
    stack = [app]
    while stack and len(found) < MAX:
        acc = stack.pop()
        try:
            d = describe(acc)
        except Exception:
            continue
        found.append(d)
        if not cells and d["role"] in SKIP_BELOW:
            continue
        try:
            kids = [acc.getChildAtIndex(i) for i in range(acc.childCount)]
        except Exception:
            continue
        stack.extend(k for k in reversed(kids) if k is not None)
    print(json.dumps(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
