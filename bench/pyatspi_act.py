#!/usr/bin/python3
"""Floor for `npm run bench`: a minimal pyatspi client acting on one app and polling the
one element that shows the effect, with nothing else (no tree, no diff, no files).

usage: /usr/bin/python3 pyatspi_act.py --pid PID

Line protocol on stdin/stdout (one JSON object per line), so the bench can interleave
these actions with its own MCP calls on the same app:
  {"op": "find", "key": K, "name": N, "roles": [R, ...]}  finds the first element named N
      (or whose text is N) with one of the roles R (pyatspi's role names, e.g. "check
      box") and keeps it as K; answers {"ok": true} or {"error": ...}.
  {"op": "act", "steps": [STEP, ...], "max_ms": M}  runs the steps one after another,
      each waiting for its effect before the next; answers {"ms", "changed": [bool...]}.
A STEP is {"key": K, "do": D, "arg": A, "watch": W, "read": R}: D is "action" (the
element's first AT-SPI action), "mouse" (a click at its centre through the registry),
"focus" (grabFocus, or a click where that fails), "insert" (EditableText.insertText at the end), "keys" (focus, then the text as
key presses through the registry), "value"
(Value.currentValue = A), "key" (focus, then a key press of keysym A through the
registry) or "scroll" (A pixels added to the scroll bar's Value). After it, element W
(default K) is read (R: "states", "text", "value" or "name") until the reading differs
from the one just before the step, or M ms pass (then changed is false); with "once":
true it is read once (an action expected to change nothing: the app's answer). Each reading
asks the app again (the element's cache is cleared first), as an agent's read-back must.
Only the steps and their polling are timed (not the reading before each step). EOF ends it.
"""
import argparse
import json
import sys
import time

sys.dont_write_bytecode = True

import pyatspi  # noqa: E402  (after the bytecode switch on purpose)
from gi.repository import Atspi, Gdk  # noqa: E402


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def find_app(pid):
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        app = desktop.getChildAtIndex(i)
        if app is not None and app.get_process_id() == pid:
            return app
    return None


def text_of(acc):
    try:
        t = acc.queryText()
        return t.getText(0, t.characterCount)
    except NotImplementedError:
        return None


def find(acc, name, roles):
    stack = [acc]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if node.getRoleName() in roles and (node.name == name or text_of(node) == name):
            return node
        stack.extend(node.getChildAtIndex(i) for i in range(node.childCount - 1, -1, -1))
    return None


def read(acc, how):
    Atspi.Accessible.clear_cache(acc)
    if how == "states":
        return sorted(pyatspi.stateToString(s) for s in acc.getState().getStates())
    if how == "text":
        return text_of(acc)
    if how == "value":
        return acc.queryValue().currentValue
    return acc.name


def click(acc):
    e = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    pyatspi.Registry.generateMouseEvent(e.x + e.width // 2, e.y + e.height // 2, "b1c")


def focus(acc):
    """grabFocus, or a click where the toolkit offers none (GTK 4)."""
    try:
        if acc.queryComponent().grabFocus():
            return
    except Exception:  # noqa: BLE001 (no Component, or the toolkit refuses)
        pass
    click(acc)


def perform(acc, do, arg):
    if do == "action":
        acc.queryAction().doAction(0)
    elif do == "focus":
        focus(acc)
    elif do == "mouse":
        click(acc)
    elif do == "insert":
        t = acc.queryEditableText()
        t.insertText(t.characterCount, arg, len(arg))
    elif do == "keys":
        focus(acc)
        pyatspi.Registry.generateKeyboardEvent(0, arg, pyatspi.KEY_STRING)
    elif do == "value":
        acc.queryValue().currentValue = float(arg)
    elif do == "scroll":
        v = acc.queryValue()
        v.currentValue = min(v.maximumValue, v.currentValue + float(arg))
    elif do == "key":
        focus(acc)
        pyatspi.Registry.generateKeyboardEvent(
            Gdk.keyval_from_name(arg), None, pyatspi.KEY_SYM
        )
    else:
        raise ValueError(f"unknown step kind {do}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pid", type=int, required=True)
    args = parser.parse_args()
    app = None
    deadline = time.monotonic() + 15
    while app is None and time.monotonic() < deadline:
        app = find_app(args.pid)
        if app is None:
            time.sleep(0.1)
    if app is None:
        say({"error": f"no accessible app with pid {args.pid}"})
        return
    say({"ready": True, "app": app.name})
    found = {}
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            cmd = json.loads(line)
            if cmd["op"] == "find":
                acc = find(app, cmd["name"], cmd["roles"])
                if acc is None:
                    say({"error": f"no {'/'.join(cmd['roles'])} named {cmd['name']!r}"})
                else:
                    found[cmd["key"]] = acc
                    say({"ok": True})
                continue
            max_s = cmd.get("max_ms", 1000) / 1000
            changed = []
            total = 0.0
            for step in cmd["steps"]:
                watch = found[step.get("watch", step["key"])]
                how = step.get("read", "states")
                before = read(watch, how)
                start = time.perf_counter()
                perform(found[step["key"]], step["do"], step.get("arg"))
                while True:
                    if step.get("once"):
                        changed.append(read(watch, how) != before)
                        break
                    if read(watch, how) != before:
                        changed.append(True)
                        break
                    if time.perf_counter() - start >= max_s:
                        changed.append(False)
                        break
                total += time.perf_counter() - start
            say({"ms": total * 1000, "changed": changed})
        except Exception as err:  # noqa: BLE001 (the bench prints what went wrong)
            say({"error": f"{type(err).__name__}: {err}"})


if __name__ == "__main__":
    main()
