#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages axpage needs to run and test on Linux:
#   - the headless desktop: Xvfb, a private D-Bus session bus, the AT-SPI2 bus and registry,
#     the GTK3 atk-bridge, openbox (focus and _NET_ACTIVE_WINDOW need a window manager),
#     x11-utils (xprop/xdpyinfo, for debugging and the WM check);
#   - test apps: gtk3-widget-factory, zenity, and the python3-gi fixtures in test/fixtures/apps;
#   - apps the e2e scenarios start from Debian packages: galculator (a GTK3 calculator whose
#     keys are toggle buttons) and mousepad (a GTK3 text editor with a save dialog);
#   - GTK4 apps for the GTK4 e2e and bench rows: gnome-calculator, gtk-4-examples, and
#     gir1.2-gtk-4.0 for the GTK4 python fixtures (test/fixtures/apps/gtk4_nav.py,
#     gtk4_matrix.py);
#   - xclip: ax_clipboard_read/_write run it (and python3-gi with GTK 3 serves what safe mode
#     holds of the clipboard when it is more than text); the tests read the clipboard with it from another
#     process, as an independent oracle;
#   - python3-pyatspi: the benchmark's baseline;
#   - python3-pyqt5: the Qt 5 fixtures (test/fixtures/apps/qt_secret.py, qt_aim.py,
#     qt_buttons.py, qt_keypad.py);
#   - kcalc: a Qt 5 calculator whose keys click its buttons a moment after the press
#     (test/e2e/paced-typing);
#   - gnome-text-editor: a GTK 4 editor whose search field reports no focus
#     (test/e2e/focus-unreported);
#   - gnumeric: a GTK 3 spreadsheet whose Format Cells dialog has a spin button that passes
#     Enter on to OK (test/e2e/spin-dialog-commit);
#   - python3-pyqt6: the Qt 6 form fixture (test/fixtures/apps/qt6_form.py);
#   - pinentry-gtk2: a real password prompt that grabs the keyboard (test/e2e/input-grab);
#   - python3-tk: a toolkit with no accessibility at all (test/fixtures/apps/tk_secret.py);
#   - the native addon's build deps (g++, make, python3 for node-gyp, X11/XExt/XTest headers);
#   - the headless sway session (test/e2e/wayland-sway, sway-ipc, sway-mcp): sway, grim for
#     screenshots, wl-clipboard for the clipboard, and the Wayland input helper's build deps
#     (libwayland-dev with wayland-scanner, libxkbcommon-dev; xkb-data for its keymap).
# xdotool is deliberately not here: axpage never runs it.
#
# Idempotent: when every package is already installed it checks dpkg and exits without touching
# apt. Runs apt through sudo only when not root.
set -euo pipefail

PACKAGES=(
  xvfb dbus dbus-x11 at-spi2-core libatk-adaptor gtk-3-examples zenity openbox x11-utils
  python3-gi gir1.2-gtk-3.0 gir1.2-atspi-2.0 python3-pyatspi
  galculator mousepad xclip
  chromium
  gnome-calculator
  gtk-4-examples
  gir1.2-gtk-4.0
  featherpad
  qt6ct
  python3-pyqt5
  kcalc
  gnome-text-editor
  gnumeric
  python3-pyqt6
  pinentry-gtk2
  python3-tk
  firefox-esr
  sway grim wl-clipboard
  g++ make python3 libx11-dev libxcb1-dev libxext-dev libxtst-dev libxi-dev
  libwayland-dev libxkbcommon-dev xkb-data
)

die() {
  echo "install-system-deps: $*" >&2
  exit 1
}

command -v dpkg-query >/dev/null 2>&1 ||
  die "dpkg-query not found: this script supports Debian/Ubuntu (apt) only. Install the equivalents of: ${PACKAGES[*]}"

# One dpkg-query call for all packages; "install ok installed" is the only status that means
# a package is fully set up. Packages dpkg has never heard of print nothing (error to /dev/null).
declare -A installed=()
while read -r pkg want ok state; do
  [ "$want $ok $state" = "install ok installed" ] && installed[$pkg]=1
done < <(dpkg-query -W -f='${Package} ${Status}\n' "${PACKAGES[@]}" 2>/dev/null || true)

missing=()
for pkg in "${PACKAGES[@]}"; do
  [ -n "${installed[$pkg]:-}" ] || missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-system-deps: all ${#PACKAGES[@]} packages already installed" >&2
  exit 0
fi

command -v apt-get >/dev/null 2>&1 ||
  die "apt-get not found; cannot install the missing packages: ${missing[*]}"

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 ||
    die "not root and sudo not found; run as root to install: ${missing[*]}"
  SUDO=(sudo)
fi

echo "install-system-deps: installing ${missing[*]}" >&2
# sudo resets the environment, so DEBIAN_FRONTEND goes through env(1).
APT=("${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get)
"${APT[@]}" update
"${APT[@]}" install -y --no-install-recommends "${missing[@]}"
echo "install-system-deps: done" >&2
