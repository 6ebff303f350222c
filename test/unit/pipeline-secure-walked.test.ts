import { describe, expect, it } from 'vitest';
import type { Element, Flag, Rect, Snapshot } from '../../src/model/element.js';
import type { SnapshotView } from '../../src/model/view.js';
import type { Desktop, SecureFieldScan } from '../../src/platform/desktop.js';
import { fieldsOfWalk, SecureFieldLocator } from '../../src/pipeline/secure.js';

const SCREEN: Rect = { x: 0, y: 0, w: 1280, h: 800 };
const at = (x: number, y: number): Rect => ({ x, y, w: 200, h: 30 });

function element(flags: Flag[], frame?: Rect): Element {
  return {
    id: '',
    parent: -1,
    depth: 0,
    role: 'AXTextField',
    nativeRole: flags.includes('secure') ? 'password text' : 'text',
    name: '',
    flags,
    frame,
    actions: [],
    childCount: 0,
  };
}

function snapshotOf(pid: number, elements: Element[], truncated: string | null = null): Snapshot {
  return {
    pid,
    app: `app${pid}`,
    elements,
    windows: [],
    truncated,
    elapsedMs: 1,
    takenAt: 0,
    method: 'test',
  };
}

const viewOf = (snapshot: Snapshot): SnapshotView => ({ snapshot }) as unknown as SnapshotView;

/** A desktop whose scan answers with each of `scans` in turn, recording what it was asked. */
function scanning(...scans: Array<SecureFieldScan | Error>): Desktop & {
  asked: Array<{ region: Rect; skip?: readonly number[] }>;
} {
  const asked: Array<{ region: Rect; skip?: readonly number[] }> = [];
  return {
    asked,
    secureFieldFrames: async (region: Rect, _timeoutMs: number, skip?: readonly number[]) => {
      asked.push({ region, skip });
      const next = scans.shift();
      if (!next) throw new Error('no more scans scripted');
      if (next instanceof Error) throw next;
      return next;
    },
  } as unknown as Desktop & { asked: Array<{ region: Rect; skip?: readonly number[] }> };
}

describe('fieldsOfWalk', () => {
  it("gives a complete walk's password frames, leaving out fields off screen and empty frames", () => {
    const s = snapshotOf(5, [
      element(['secure'], at(10, 10)),
      element([], at(10, 50)),
      element(['secure', 'offscreen']),
      element(['secure'], { x: 1, y: 1, w: 0, h: 10 }),
      element(['secure', 'focused'], at(10, 90)),
    ]);
    expect(fieldsOfWalk(s)).toEqual({ pid: 5, frames: [at(10, 10), at(10, 90)] });
  });

  it('a walk with no password field gives no frames (and stands)', () => {
    expect(fieldsOfWalk(snapshotOf(6, [element([], at(0, 0))]))).toEqual({ pid: 6, frames: [] });
  });

  it('a walk cut short cannot stand for the lookup', () => {
    const s = snapshotOf(5, [element(['secure'], at(10, 10))], 'max elements 5000');
    expect(fieldsOfWalk(s)).toBeUndefined();
  });

  it('a field on screen without a frame (a window not placed) leaves the app to the lookup', () => {
    const s = snapshotOf(5, [element(['secure'], at(10, 10)), element(['secure'])]);
    expect(fieldsOfWalk(s)).toBeUndefined();
  });
});

describe('SecureFieldLocator with the fields of a walk just made', () => {
  it('does not ask the walked app again, and fills its walk frames and the others fresh ones', async () => {
    const desktop = scanning({ fresh: [{ pid: 2, frames: [at(700, 20)] }], failed: [] });
    const target = viewOf(snapshotOf(1, [element(['secure'], at(100, 100))]));
    const r = await new SecureFieldLocator().locate(desktop, SCREEN, [target], {
      pid: 1,
      frames: [at(100, 100)],
    });
    expect(desktop.asked).toEqual([{ region: SCREEN, skip: [1] }]);
    expect(r.frames).toEqual([at(100, 100), at(700, 20)]);
    expect(r.stale).toBeUndefined();
  });

  it("the walk's frames win over the view's and over a backend that read the app anyway", async () => {
    const desktop = scanning({
      fresh: [
        { pid: 1, frames: [at(1, 1)] },
        { pid: 2, frames: [] },
      ],
      failed: [{ pid: 1, reason: 'ignored' }],
    });
    const older = viewOf(snapshotOf(1, [element(['secure'], at(400, 400))]));
    const r = await new SecureFieldLocator().locate(desktop, SCREEN, [older], {
      pid: 1,
      frames: [at(100, 100)],
    });
    expect(r.frames).toEqual([at(100, 100)]);
    expect(r.stale).toBeUndefined();
  });

  it('a scan that throws fills the whole capture, the walked fields first', async () => {
    const desktop = scanning(
      { fresh: [{ pid: 3, frames: [at(700, 20)] }], failed: [] },
      new Error('the bus is gone'),
    );
    const locator = new SecureFieldLocator();
    await locator.locate(desktop, SCREEN, []);
    const r = await locator.locate(desktop, SCREEN, [], { pid: 1, frames: [at(100, 100)] });
    expect(r.frames).toEqual([at(100, 100), SCREEN]);
    expect(r.stale?.short).toBe('password fields not located now: the whole capture is filled');
    expect(r.stale?.detail).toMatch(/\(the bus is gone\)/);
  });

  it("the walked frames become the app's last known ones, for a later lookup that fails", async () => {
    const win = { x: 90, y: 90, w: 300, h: 200 };
    const desktop = scanning(
      { fresh: [], failed: [] },
      { fresh: [], failed: [{ pid: 1, reason: 'did not answer within 400 ms', windows: [win] }] },
    );
    const locator = new SecureFieldLocator();
    await locator.locate(desktop, SCREEN, [], { pid: 1, frames: [at(100, 100)] });
    const r = await locator.locate(desktop, SCREEN, []);
    expect(desktop.asked[1].skip).toEqual([]);
    expect(r.frames).toEqual([win, at(100, 100)]);
    expect(r.stale?.short).toBe(
      'windows of pid 1 filled whole: password fields not located in time',
    );
  });
});
