import { describe, expect, it, vi } from 'vitest';
import { LinuxDesktop } from '../../src/platform/linux/index.js';
import type * as Wire from '../../src/platform/linux/atspi/wire.js';

// The bus daemon says every name still has its owner: the app is taken as still there.
vi.mock('../../src/platform/linux/atspi/wire.js', async (original) => ({
  ...(await original<typeof Wire>()),
  nameHasOwner: async () => true,
}));

/** A backend with one remembered app (pid 7) on a bus that answers. */
function remembering(name: string): LinuxDesktop {
  const desktop = Object.create(LinuxDesktop.prototype) as Record<string, unknown>;
  desktop.appRefs = new Map([
    [7, { bus: ':1.5', path: '/org/a11y/atspi/accessible/root', pid: 7, name }],
  ]);
  desktop.bus = { isClosed: false, isSilent: () => false };
  return desktop as unknown as LinuxDesktop;
}

describe('LinuxDesktop.knownApp', () => {
  it('vouches for a remembered app with its registered name', async () => {
    await expect(remembering('mousepad').knownApp(7)).resolves.toEqual({
      pid: 7,
      name: 'mousepad',
    });
  });

  it('does not vouch for one remembered without a name: the policy would judge ""', async () => {
    await expect(remembering('').knownApp(7)).resolves.toBeNull();
  });

  it('knows nothing of a pid it has not found', async () => {
    await expect(remembering('mousepad').knownApp(8)).resolves.toBeNull();
  });
});
