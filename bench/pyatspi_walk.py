#!/usr/bin/python3
"""Baseline for `npm run bench`: a naive recursive pyatspi walk of one app.

Reads per element what axpage's snapshot reads: role, name, description, states, child
count (and the children) and screen extents (for elements with the Component interface),
for the app's top-level windows and everything below them (axpage has no element for the
application object itself either).

usage: /usr/bin/python3 pyatspi_walk.py --pid PID

Line protocol on stdin/stdout, so the bench can interleave these walks with its own:
prints {"ready": true, "app": NAME} (or {"error": ...}) once the app is found, then for
each input line "walk" or "walk clear" one JSON line {"ms", "elements", "with_extents"}.
"walk" keeps libatspi's cache (a long-lived pyatspi client); "walk clear" calls
app.clear_cache() first (outside the timing), so every property is asked from the app
again. Only the walk is timed, not Python's start-up or the imports. EOF ends it.
"""
import argparse
import json
import sys
import time

sys.dont_write_bytecode = True

import pyatspi  # noqa: E402  (after the bytecode switch on purpose)


def walk(acc, out):
    ext = None
    if "Component" in pyatspi.listInterfaces(acc):
        e = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        ext = (e.x, e.y, e.width, e.height)
    count = acc.childCount
    out.append(
        (
            acc.getRoleName(),
            acc.name,
            acc.description,
            [pyatspi.stateToString(s) for s in acc.getState().getStates()],
            count,
            ext,
        )
    )
    for i in range(count):
        child = acc.getChildAtIndex(i)
        if child is not None:
            walk(child, out)
    return out


def walk_app(app):
    nodes = []
    for i in range(app.childCount):
        top = app.getChildAtIndex(i)
        if top is not None:
            walk(top, nodes)
    return nodes


def find_app(pid):
    for app in pyatspi.Registry.getDesktop(0):
        if app is not None and app.get_process_id() == pid:
            return app
    return None


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pid", type=int, required=True)
    args = ap.parse_args()
    app = find_app(args.pid)
    if app is None:
        say({"error": f"pid {args.pid} is not on the accessibility bus"})
        return 1
    say({"ready": True, "app": app.name})
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] != "walk":
            say({"error": f"unknown command {line.strip()!r}"})
            continue
        if "clear" in cmd[1:]:
            app.clear_cache()
        t0 = time.perf_counter()
        nodes = walk_app(app)
        ms = (time.perf_counter() - t0) * 1000
        say(
            {
                "ms": ms,
                "elements": len(nodes),
                "with_extents": sum(1 for n in nodes if n[5] is not None),
            }
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
