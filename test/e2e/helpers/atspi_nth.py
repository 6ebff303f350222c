#!/usr/bin/python3
"""An independent reader of one element of an app, for the e2e scenarios' oracle.

Like atspi_read.py it uses pyatspi (libatspi), not axpage's own D-Bus client, but it reads
one element only, which keeps it quick on an app of a thousand elements: argv[1] the app's
pid, argv[2] an AT-SPI role name ("check box"), argv[3] n. Walks the app depth first (the
order of a tree file; tables' and trees' cells are skipped, as atspi_read.py does) asking
each element only its role, and prints one JSON object: {"count": how many elements have
that role, "element": the nth of them (from 0) as atspi_read.py describes one, or null}.
"""
import json
import sys

import pyatspi

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
        out["states"] = sorted(pyatspi.stateToString(s) for s in acc.getState().getStates())
    except Exception:
        out["states"] = []
    try:
        t = acc.queryText()
        out["text"] = t.getText(0, min(t.characterCount, 2000))
    except Exception:
        pass
    try:
        out["value"] = acc.queryValue().currentValue
    except Exception:
        pass
    return out


def main():
    pid, role, nth = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    app = find_app(pid)
    if app is None:
        print(json.dumps({"error": f"no app with pid {pid}"}))
        return 2
    count = 0
    element = None
    stack = [app]
    while stack:
        acc = stack.pop()
        try:
            name = acc.getRoleName()
        except Exception:
            continue
        if name == role:
            if count == nth:
                element = describe(acc)
            count += 1
        if name in SKIP_BELOW:
            continue
        try:
            kids = [acc.getChildAtIndex(i) for i in range(acc.childCount)]
        except Exception:
            continue
        stack.extend(k for k in reversed(kids) if k is not None)
    print(json.dumps({"count": count, "element": element}))
    return 0


sys.exit(main())
