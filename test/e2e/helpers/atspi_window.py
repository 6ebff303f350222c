#!/usr/bin/python3
"""An independent reader of one top-level window of an app, for the e2e oracle: quick on
an app whose other windows hold a thousand elements.

Prints one JSON object: "windows", the names of the app's (pid argv[1]) top-level
windows, and "elements", every element of the first one named argv[2] (depth first, at
most 4000), each described as atspi_read.py does ([] when no window has that name).
"""
import json
import sys

from atspi_read import MAX, describe, find_app


def main():
    pid = int(sys.argv[1])
    title = sys.argv[2]
    app = find_app(pid)
    if app is None:
        print(json.dumps({"error": f"no app with pid {pid}"}))
        return 2
    tops = [w for w in (app.getChildAtIndex(i) for i in range(app.childCount)) if w is not None]
    names = [w.name or "" for w in tops]
    found = []
    stack = [w for w in tops if (w.name or "") == title][:1]
    while stack and len(found) < MAX:
        acc = stack.pop()
        try:
            found.append(describe(acc))
            kids = [acc.getChildAtIndex(i) for i in range(acc.childCount)]
        except Exception:
            continue
        stack.extend(k for k in reversed(kids) if k is not None)
    print(json.dumps({"windows": names, "elements": found}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
