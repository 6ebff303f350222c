#!/usr/bin/env bash
# Installs the Debian packages the fleet test (test/fleet) and `npm run bench`'s fleet rows need
# to build and run desktop containers: podman (rootful; no Docker engine), runc (podman's OCI
# runtime here: crun 1.8 refuses a hybrid cgroup v1 layout) and debootstrap (the image's Debian
# base is made from Debian's archive, no image registry is used). Kept apart from
# install-system-deps.sh: only the fleet needs them, and they need root to be of use.
# Idempotent: exits without touching apt when all are installed.
set -euo pipefail

PACKAGES=(podman runc debootstrap)

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-fleet-deps: all ${#PACKAGES[@]} packages already installed" >&2
  exit 0
fi
[ "$(id -u)" -eq 0 ] || {
  echo "install-fleet-deps: run as root (rootful podman and debootstrap need it): ${missing[*]}" >&2
  exit 1
}
echo "install-fleet-deps: installing ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
