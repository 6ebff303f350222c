import { describe, expect, it } from 'vitest';
import type { Element, Rect, Snapshot } from '../../src/model/element.js';
import type { SnapshotView } from '../../src/model/view.js';
import type { Desktop, SecureFieldScan } from '../../src/platform/desktop.js';
import { SecureFieldLocator } from '../../src/pipeline/secure.js';

const SCREEN: Rect = { x: 0, y: 0, w: 1280, h: 800 };

/** A walk of `pid` holding one password field at `frame`. */
function walkWithField(pid: number, frame: Rect): SnapshotView {
  const field = {
    role: 'AXTextField',
    nativeRole: 'password text',
    flags: ['secure'],
    frame,
    parent: -1,
  } as unknown as Element;
  const snapshot = { pid, app: `app${pid}`, elements: [field], windows: [] } as unknown as Snapshot;
  return { snapshot } as unknown as SnapshotView;
}

/** A desktop whose scan answers with each of `scans` in turn (an Error is thrown). */
function scanning(...scans: Array<SecureFieldScan | Error>): Desktop & { regions: Rect[] } {
  const regions: Rect[] = [];
  return {
    regions,
    secureFieldFrames: async (region: Rect) => {
      regions.push(region);
      const next = scans.shift();
      if (!next) throw new Error('no more scans scripted');
      if (next instanceof Error) throw next;
      return next;
    },
  } as unknown as Desktop & { regions: Rect[] };
}

const at = (x: number, y: number): Rect => ({ x, y, w: 200, h: 30 });

describe('SecureFieldLocator', () => {
  it('fills the fresh frames of every app the scan read, not the walk of a window that moved', async () => {
    const desktop = scanning({
      fresh: [
        { pid: 1, frames: [at(500, 400)] },
        { pid: 2, frames: [at(10, 10), at(10, 50)] },
      ],
      failed: [],
    });
    const r = await new SecureFieldLocator().locate(desktop, SCREEN, [
      walkWithField(1, at(100, 100)),
    ]);
    expect(r.frames).toEqual([at(500, 400), at(10, 10), at(10, 50)]);
    expect(r.stale).toBeUndefined();
    expect(desktop.regions).toEqual([SCREEN]);
  });

  it('an app that fails gets its last fresh frames and its walk, and the redaction says so', async () => {
    const desktop = scanning(
      { fresh: [{ pid: 2, frames: [at(10, 10)] }], failed: [] },
      { fresh: [], failed: [{ pid: 2, reason: 'did not answer within 400 ms' }] },
    );
    const locator = new SecureFieldLocator();
    await locator.locate(desktop, SCREEN, []);
    const r = await locator.locate(desktop, SCREEN, [walkWithField(2, at(30, 30))]);
    expect(r.frames).toEqual([at(10, 10), at(30, 30)]);
    expect(r.stale?.short).toBe('password fields of pid 2 filled at their last known positions');
    expect(r.stale?.detail).toMatch(/not located now \(pid 2: did not answer within 400 ms\)/);
  });

  it('a scan that throws falls back to every known frame, and says why', async () => {
    const desktop = scanning(
      { fresh: [{ pid: 3, frames: [at(700, 20)] }], failed: [] },
      new Error('the bus is gone'),
    );
    const locator = new SecureFieldLocator();
    await locator.locate(desktop, SCREEN, []);
    const r = await locator.locate(desktop, SCREEN, [walkWithField(1, at(100, 100))]);
    expect(r.frames).toEqual(expect.arrayContaining([at(700, 20), at(100, 100)]));
    expect(r.frames).toHaveLength(2);
    expect(r.stale?.short).toBe(
      'password fields not located now: those of pid 1, pid 3 filled at their last known positions, no others',
    );
    expect(r.stale?.detail).toMatch(/not located now \(the bus is gone\)/);
    const none = await new SecureFieldLocator().locate(scanning(new Error('gone')), SCREEN, []);
    expect(none.frames).toEqual([]);
    expect(none.stale?.short).toBe('password fields not located now: none filled');
  });

  it('says so when an app that fails was never located nor walked: nothing of it is filled', async () => {
    const desktop = scanning({
      fresh: [],
      failed: [
        { pid: 7, reason: 'did not answer within 400 ms' },
        { pid: 2, reason: 'did not answer within 400 ms' },
      ],
    });
    const r = await new SecureFieldLocator().locate(desktop, SCREEN, [walkWithField(2, at(1, 1))]);
    expect(r.frames).toEqual([at(1, 1)]);
    expect(r.stale?.short).toBe(
      'password fields of pid 2 filled at their last known positions; password fields of pid 7 not located: none filled',
    );
  });

  it('keeps the walk of an app in hand that the scan did not see (a window without a pid)', async () => {
    const desktop = scanning({ fresh: [], failed: [] });
    const r = await new SecureFieldLocator().locate(desktop, SCREEN, [walkWithField(4, at(5, 5))]);
    expect(r.frames).toEqual([at(5, 5)]);
    expect(r.stale).toBeUndefined();
  });
});
