import { describe, expect, it, vi } from 'vitest';
import { LinuxDesktop } from '../../src/platform/linux/index.js';
import type * as Wire from '../../src/platform/linux/atspi/wire.js';
import { AtspiTimeoutError } from '../../src/platform/linux/atspi/bus.js';
import { spawn } from 'node:child_process';
import { stoppedProcess } from '../../src/platform/linux/proc.js';

// The bus daemon says every name still has its owner: the app is taken as still there.
vi.mock('../../src/platform/linux/atspi/wire.js', async (original) => ({
  ...(await original<typeof Wire>()),
  nameHasOwner: async () => true,
}));

/**
 * A backend that remembers one app as pid 7 (its process is `pid`, by default this one,
 * which /proc shows running) on a bus where it answers its liveness check, or lets it
 * time out.
 */
function remembering(name: string, answers = true, pid = process.pid): LinuxDesktop {
  const desktop = Object.create(LinuxDesktop.prototype) as Record<string, unknown>;
  desktop.appRefs = new Map([
    [7, { bus: ':1.5', path: '/org/a11y/atspi/accessible/root', pid, name }],
  ]);
  const silent = new Set<string>();
  desktop.bus = {
    isClosed: false,
    isSilent: (n: string) => silent.has(n),
    markSilent: (n: string) => void silent.add(n),
    clearSilent: (n: string) => void silent.delete(n),
    call: (dest: string, ...rest: unknown[]) =>
      answers
        ? Promise.resolve([{ value: 1 }])
        : Promise.reject(new AtspiTimeoutError(`Properties.Get on ${dest}`, rest[5] as number)),
  };
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

  it('does not vouch for one that misses its liveness check: it is asked again', async () => {
    await expect(remembering('mousepad', false).knownApp(7)).resolves.toBeNull();
  });

  it('does not vouch for a stopped process, and asks it nothing', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      child.kill('SIGSTOP');
      while (!stoppedProcess(child.pid!)) await new Promise((r) => setTimeout(r, 10));
      const desktop = remembering('mousepad', true, child.pid);
      const bus = (desktop as unknown as { bus: { call: unknown } }).bus;
      bus.call = () => Promise.reject(new Error('a stopped process was asked'));
      await expect(desktop.knownApp(7)).resolves.toBeNull();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('knows nothing of a pid it has not found', async () => {
    await expect(remembering('mousepad').knownApp(8)).resolves.toBeNull();
  });
});
