#!/usr/bin/python3
"""An independent reader of one element of an app, for the e2e scenarios' oracle.

Like atspi_read.py it uses pyatspi (libatspi), not axpage's own D-Bus client, but it reads
one element only, which keeps it quick on an app of a thousand elements: argv[1] the app's
pid, argv[2] an AT-SPI role name ("check box"), argv[3] n. Walks the app depth first (the
order of a tree file; tables' and trees' cells are skipped, as atspi_read.py does) asking
each element only its role, and prints one JSON object: {"count": how many elements have
that role, "element": the nth of them (from 0) as atspi_read.py describes one, or null}.
An optional argv[4] counts only the elements of that role with that name.
"""
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the helpers
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from atspi_read import SKIP_BELOW, describe, find_app  # noqa: E402  (the one reader of an element)


def main():
    pid, role, nth = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    named = sys.argv[4] if len(sys.argv) > 4 else None
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
        if name == role and (named is None or acc.name == named):
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
