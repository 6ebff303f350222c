/**
 * What a headless sway session needs, for every test that brings one up: the compositor
 * and its IPC client, its screenshot tool, a session bus, the accessibility bus, and
 * axpage's own Wayland input helper.
 */
import { helperPath } from '../../../src/platform/linux/wayland/input.js';
import { file, found, program, type Need } from './needs.js';

export const SWAY_SESSION_NEEDS: readonly Need[] = [
  program('sway', 'sway'),
  program('swaymsg', 'sway'),
  program('grim', 'grim'),
  program('dbus-daemon', 'dbus'),
  file('/usr/libexec/at-spi-bus-launcher', 'at-spi2-core'),
  found(
    'axpage-wl-input (native/build, built by npm ci)',
    'libwayland-dev libxkbcommon-dev',
    helperPath() !== undefined,
  ),
];
