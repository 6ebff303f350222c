#!/bin/sh
# The container's main process (under tini): bring the headless desktop up, serve MCP over
# HTTP, and on SIGTERM stop in the order that loses nothing: the server first (it ends every
# MCP session; each pair file is renamed into place whole and each session log line is one
# append, so what was written stays whole), then the apps it launched (SIGTERM, then SIGKILL
# after a grace period), then the desktop's own daemons.
set -eu

say() { echo "axpage-entrypoint: $*" >&2; }

eval "$(axpage desktop up --display 0 --size "${AXPAGE_DESKTOP_SIZE:-1280x800x24}")"

axpage serve "$@" &
server=$!
stopping=0
trap 'stopping=1; kill -TERM "$server" 2>/dev/null || true' TERM INT HUP

# `wait` returns early when a trapped signal arrives: wait again until the server is gone.
rc=0
while :; do
  if wait "$server"; then rc=0; else rc=$?; fi
  kill -0 "$server" 2>/dev/null || break
done
[ "$stopping" = 1 ] || say "axpage serve exited with $rc"

# The apps axpage launched were started detached: with the server gone they are tini's
# children, like the desktop's daemons (which `axpage desktop down` stops last).
daemons=" $(axpage desktop status --display 0 --json 2>/dev/null | sed -n 's/.*"pid": \([0-9]*\).*/\1/p' | tr '\n' ' ') "
apps() {
  for dir in /proc/[0-9]*; do
    pid=${dir#/proc/}
    case "$daemons" in *" $pid "*) continue ;; esac
    ppid=$(sed -n 's/^PPid:[[:space:]]*//p' "$dir/status" 2>/dev/null) || continue
    [ "$ppid" = 1 ] && [ "$pid" != $$ ] && echo "$pid"
  done
  return 0
}
left=$(apps)
if [ -n "$left" ]; then
  say "closing $(echo $left | wc -w) app process(es)"
  kill -TERM $left 2>/dev/null || true
  i=0
  while [ -n "$(apps)" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  left=$(apps)
  [ -z "$left" ] || { say "killing what did not close in 5 s: $left"; kill -KILL $left 2>/dev/null || true; }
fi
axpage desktop down --display 0 || rc=1
say "stopped (exit $rc)"
exit "$rc"
