#!/usr/bin/env bash
# Builds the desktop image (deploy/Containerfile) and the example image with two Debian apps
# (deploy/examples/Containerfile) with podman, offline from any image registry:
#   1. a minbase Debian bookworm rootfs from Debian's archive (debootstrap), `podman import`ed;
#   2. a build context holding axpage as built here (dist/, the native addon, the production
#      node_modules pruned from this checkout's) and this machine's Node binary;
#   3. `podman build --pull=never` of both Containerfiles.
# Each image is tagged by a hash of everything that goes into it, and a tag that exists is
# reused: run it again after `npm run build` and only what changed is rebuilt.
# Prints `desktop=<tag>` and `apps=<tag>` on stdout; progress goes to stderr.
# Needs root (debootstrap, rootful podman) and scripts/install-fleet-deps.sh's packages.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
export CONTAINERS_CONF="${CONTAINERS_CONF:-$root/deploy/podman/containers.conf}"
cache="${AXPAGE_FLEET_CACHE:-/var/tmp/axpage-fleet}"
mirror="${AXPAGE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
suite=bookworm
say() { echo "build-image: $*" >&2; }
has_image() { podman image exists "$1"; }

[ -f "$root/dist/cli.js" ] || { say "no dist/: run npm run build first"; exit 1; }
[ -f "$root/native/build/Release/axpage_native.node" ] || {
  say "no native addon: run npm ci (it builds native/) first"
  exit 1
}
mkdir -p "$cache"

# 1. The base: only the debootstrap parameters decide it.
base_hash=$(printf '%s\n' "$suite" "$mirror" minbase | sha256sum | cut -c1-12)
base="localhost/axpage-debian-base:$suite-$base_hash"
if ! has_image "$base"; then
  say "debootstrap $suite (minbase) from $mirror"
  rootfs="$cache/rootfs-$base_hash"
  rm -rf "$rootfs"
  debootstrap --variant=minbase "$suite" "$rootfs" "$mirror" >"$cache/debootstrap.log" 2>&1 || {
    tail -20 "$cache/debootstrap.log" >&2
    exit 1
  }
  tar -C "$rootfs" --numeric-owner -c . | podman import --quiet - "$base" >/dev/null
  rm -rf "$rootfs"
fi

# 2. The build context, and the hash of what it holds.
ctx=$(mktemp -d "$cache/context.XXXXXX")
trap 'rm -rf "$ctx"' EXIT
app="$ctx/axpage"
mkdir -p "$app/native/build/Release"
cp -a "$root/package.json" "$root/package-lock.json" "$root/dist" "$app/"
cp -a "$root/native/package.json" "$root/native/index.js" "$app/native/"
cp -a "$root/native/build/Release/axpage_native.node" "$app/native/build/Release/"
cp -a "$root/node_modules" "$app/"
# The workspace link points at the copy of native/ above; dev dependencies go.
(cd "$app" && npm prune --omit=dev --ignore-scripts --offline --no-audit --no-fund >/dev/null 2>&1) || {
  say "npm prune failed in $app"
  exit 1
}
# Caches tools write under node_modules (vitest's results) change with every test run.
rm -rf "$app/dist/bench" "$app/node_modules/.vite" "$app/node_modules/.vite-temp" "$app/node_modules/.cache"
cp "$(command -v node)" "$ctx/node"
cp "$root/deploy/Containerfile" "$root/deploy/entrypoint.sh" "$ctx/"
sum=$( (cd "$ctx" && find . -type f -o -type l | LC_ALL=C sort | while read -r f; do
  if [ -L "$f" ]; then echo "$f -> $(readlink "$f")"; else sha256sum "$f"; fi
done; echo "$base") | sha256sum | cut -c1-12)
desktop="localhost/axpage-desktop:$sum"
if ! has_image "$desktop"; then
  say "building $desktop"
  podman build --pull=never --quiet --build-arg "BASE=$base" -t "$desktop" "$ctx" >/dev/null
fi

# 3. The example image on top.
apps_sum=$( (cat "$root/deploy/examples/Containerfile"; echo "$desktop") | sha256sum | cut -c1-12)
apps="localhost/axpage-desktop-apps:$apps_sum"
if ! has_image "$apps"; then
  say "building $apps"
  podman build --pull=never --quiet --build-arg "BASE=$desktop" -t "$apps" "$root/deploy/examples" >/dev/null
fi
echo "desktop=$desktop"
echo "apps=$apps"
