import { describe, expect, it } from 'vitest';
import type { Element, Rect, Snapshot } from '../../src/model/element.js';
import type { SnapshotView } from '../../src/model/view.js';
import type { Desktop, SecureFieldScan } from '../../src/platform/desktop.js';
import { SecureFieldLocator, lookupBudget } from '../../src/pipeline/secure.js';

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

  it('windows without accessibility are filled whole in safe mode only, prompts in every mode', async () => {
    const tool = { x: 600, y: 100, w: 300, h: 200 };
    const prompt = { x: 50, y: 500, w: 200, h: 100 };
    const scan = (): SecureFieldScan => ({
      fresh: [],
      failed: [],
      prompts: [{ pid: 9, frame: prompt }],
      inaccessible: [{ pid: 8, frame: tool }],
    });
    const full = await new SecureFieldLocator(false).locate(scanning(scan()), SCREEN, []);
    expect(full.frames).toEqual([prompt]);
    const safe = await new SecureFieldLocator(true).locate(scanning(scan()), SCREEN, []);
    expect(safe.frames).toEqual(expect.arrayContaining([prompt, tool]));
    expect(safe.stale?.short).toMatch(/1 other window without accessibility filled whole/);
  });

  it('an app that fails has its windows filled whole, its last fresh frames too, and says so', async () => {
    const win = { x: 0, y: 0, w: 400, h: 300 };
    const desktop = scanning(
      { fresh: [{ pid: 2, frames: [at(10, 10)] }], failed: [] },
      { fresh: [], failed: [{ pid: 2, reason: 'did not answer within 400 ms', windows: [win] }] },
    );
    const locator = new SecureFieldLocator();
    await locator.locate(desktop, SCREEN, []);
    const r = await locator.locate(desktop, SCREEN, [walkWithField(2, at(30, 30))]);
    expect(r.frames).toEqual([win, at(10, 10), at(30, 30)]);
    expect(r.stale?.short).toBe(
      'windows of pid 2 filled whole: password fields not located in time',
    );
    expect(r.stale?.detail).toMatch(/\(pid 2: did not answer within 400 ms\)/);
  });

  it('a scan that throws fills the whole capture, and says why', async () => {
    const r = await new SecureFieldLocator().locate(scanning(new Error('gone')), SCREEN, []);
    expect(r.frames).toEqual([SCREEN]);
    expect(r.stale?.short).toBe('password fields not located now: the whole capture is filled');
    expect(r.stale?.detail).toMatch(/\(gone\)/);
  });

  it('an app never located nor walked that fails: its windows are filled, many apps are counted', async () => {
    const win = (x: number) => ({ x, y: 0, w: 100, h: 100 });
    const desktop = scanning({
      fresh: [],
      failed: [7, 2, 9].map((pid) => ({ pid, reason: 'stopped', windows: [win(pid)] })),
    });
    const r = await new SecureFieldLocator().locate(desktop, SCREEN, []);
    expect(r.frames).toEqual([win(7), win(2), win(9)]);
    expect(r.stale?.short).toBe(
      'windows of 3 apps filled whole: password fields not located in time',
    );
  });

  it('an app that fails where nothing says where its windows are: the whole region', async () => {
    const desktop = scanning({ fresh: [], failed: [{ pid: 4, reason: 'timed out' }] });
    const r = await new SecureFieldLocator().locate(desktop, SCREEN, []);
    expect(r.frames).toEqual([SCREEN]);
    expect(r.stale?.short).toBe(
      'windows of pid 4 filled whole: password fields not located in time',
    );
  });

  it('fills password prompts without accessibility whole, and says how many', async () => {
    const prompt = { x: 300, y: 200, w: 400, h: 150 };
    const r = await new SecureFieldLocator().locate(
      scanning({ fresh: [], failed: [], prompts: [{ pid: null, frame: prompt }] }),
      SCREEN,
      [],
    );
    expect(r.frames).toEqual([prompt]);
    expect(r.stale?.short).toBe(
      '1 window without accessibility that asks for a password filled whole',
    );
  });

  it('keeps the walk of an app in hand that the scan did not see (a window without a pid)', async () => {
    const desktop = scanning({ fresh: [], failed: [] });
    const r = await new SecureFieldLocator().locate(desktop, SCREEN, [walkWithField(4, at(5, 5))]);
    expect(r.frames).toEqual([at(5, 5)]);
    expect(r.stale).toBeUndefined();
  });
});

describe('lookupBudget', () => {
  it('is the least on an idle desktop with quick lookups', () => {
    expect(lookupBudget([], 0.2)).toBe(400);
    expect(lookupBudget([5, 30, 12], 0.9)).toBe(400);
  });

  it('grows with the run queue per CPU and with slow recent lookups, within the most', () => {
    expect(lookupBudget([], 3)).toBe(1200);
    expect(lookupBudget([10, 500], 0.5)).toBe(1500);
    expect(lookupBudget([800], 2.5)).toBe(2400);
    expect(lookupBudget([], 50)).toBe(4000);
    expect(lookupBudget([60_000], 1)).toBe(4000);
    expect(lookupBudget([Number.NaN], Number.NaN)).toBe(400);
  });
});

describe('SecureFieldLocator budget', () => {
  it('a lookup that ran out counts twice into the next budget; a quick one does not', async () => {
    let clock = 0;
    const failed = { pid: 1, reason: 'timed out', windows: [] };
    const desktop = {
      secureFieldFrames: async (_region: Rect, timeoutMs: number) => {
        clock += timeoutMs; // every app but one answered; that one took the whole budget
        return { fresh: [], failed: [failed] };
      },
    } as unknown as Desktop;
    const locator = new SecureFieldLocator(
      false,
      () => 0,
      () => clock,
    );
    expect(locator.budget()).toBe(400);
    await locator.locate(desktop, SCREEN, []);
    expect(locator.budget()).toBe(2400);
    await locator.locate(desktop, SCREEN, []);
    expect(locator.budget()).toBe(4000);
    const quick = new SecureFieldLocator(
      false,
      () => 0,
      () => clock,
    );
    await quick.locate(scanning({ fresh: [], failed: [failed] }), SCREEN, []);
    expect(quick.budget()).toBe(400);
  });
});

describe('SecureFieldLocator with the windows around the capture', () => {
  const A = { x: 100, y: 100, w: 360, h: 120 };
  const B = { x: 560, y: 420, w: 360, h: 120 };
  const win = (frame: Rect) => ({ id: 1, pid: 3, title: 'w', frame, active: false });

  function scanningAt(field: Rect, atLookup: Rect): Desktop {
    return {
      secureFieldFrames: async () => ({ fresh: [{ pid: 3, frames: [field] }], failed: [] }),
      listWindows: async () => [win(atLookup)],
    } as unknown as Desktop;
  }

  it('a window that moved while the pixels were read is filled whole, and the summary says so', async () => {
    const field = { x: 580, y: 440, w: 320, h: 30 };
    const r = await new SecureFieldLocator().locate(scanningAt(field, B), SCREEN, [], undefined, {
      before: [win(A)],
      after: [win(B)],
    });
    expect(r.frames).toEqual(expect.arrayContaining([A, B]));
    expect(r.stale?.short).toBe(
      'windows of pid 3 filled whole: they moved while the screen was read',
    );
  });

  it('an app that fails while its window keeps moving: filled wherever the window was seen', async () => {
    let now = 0;
    const locator = new SecureFieldLocator(
      false,
      () => 0,
      () => now,
    );
    const failing = {
      secureFieldFrames: async () => ({
        fresh: [],
        failed: [{ pid: 3, reason: 'did not answer', windows: [A] }],
      }),
      listWindows: async () => [win(A)],
    } as unknown as Desktop;
    for (const [before, after] of [
      [A, B],
      [B, A],
    ]) {
      now += 100;
      await locator.locate(failing, SCREEN, [], undefined, {
        before: [win(before)],
        after: [win(after)],
      });
    }
    // It left for B and came back between this capture's listings: they both say A.
    now += 100;
    const r = await locator.locate(failing, SCREEN, [], undefined, {
      before: [win(A)],
      after: [win(A)],
    });
    expect(r.frames).toEqual(expect.arrayContaining([A, B]));
  });

  it('a walked app with password fields is looked up again: its walk is older than the pixels', async () => {
    const field = { x: 120, y: 120, w: 320, h: 30 };
    const skipped: number[][] = [];
    const desktop = {
      secureFieldFrames: async (_r: Rect, _t: number, skip: number[]) => {
        skipped.push(skip);
        return { fresh: [{ pid: 3, frames: [field] }], failed: [] };
      },
      listWindows: async () => [win(A)],
    } as unknown as Desktop;
    const r = await new SecureFieldLocator().locate(
      desktop,
      SCREEN,
      [],
      { pid: 3, frames: [{ x: 580, y: 440, w: 320, h: 30 }] },
      { before: [win(A)], after: [win(A)] },
    );
    expect(skipped).toEqual([[]]);
    expect(r.frames).toEqual([field]);
    expect(r.stale).toBeUndefined();
  });
});

describe('SecureFieldLocator with fields that move in their window', () => {
  const APP = {
    id: 1,
    pid: 3,
    title: 'app',
    frame: { x: 0, y: 0, w: 1280, h: 800 },
    active: false,
  };
  const FRONT = {
    id: 2,
    pid: 4,
    title: 'front',
    frame: { x: 700, y: 400, w: 400, h: 200 },
    outer: { x: 699, y: 380, w: 402, h: 221 },
    active: true,
  };
  const field = { x: 24, y: 282, w: 200, h: 30 };
  const fieldId = ':1.5/org/a11y/atspi/accessible/7';

  function desktopWith(
    fields: Array<{ id: string; frame: Rect }>,
    windows: (typeof APP)[] = [FRONT, APP],
  ): Desktop {
    return {
      secureFieldFrames: async () => ({
        fresh: [{ pid: 3, frames: fields.map((f) => f.frame), fields }],
        failed: [],
      }),
      listWindows: async () => windows,
    } as unknown as Desktop;
  }

  /** Two captures: the first notes the field, the second reads it back first (`earlier`). */
  async function twoCaptures(
    locator: SecureFieldLocator,
    desktop: Desktop,
    earlier: Map<string, Rect>,
    around = { before: [FRONT, APP], after: [FRONT, APP] },
  ) {
    await locator.locate(desktop, SCREEN, [], undefined, around);
    return locator.locate(desktop, SCREEN, [], undefined, around, earlier);
  }

  it('a field found twice by its id is one field: where it stays, only it is filled', async () => {
    // Found by its role and remembered by its id, the second read a few pixels off.
    const desktop = desktopWith([
      { id: fieldId, frame: field },
      { id: fieldId, frame: { ...field, x: 19, y: 277 } },
    ]);
    const r = await twoCaptures(new SecureFieldLocator(), desktop, new Map([[fieldId, field]]));
    expect(r.frames).not.toContainEqual(APP.frame);
    expect(r.frames).toContainEqual(field);
    expect(r.stale).toBeUndefined();
  });

  it('a field that moved fills its window where it shows, not the window in front, and says so', async () => {
    const desktop = desktopWith([{ id: fieldId, frame: field }]);
    const r = await twoCaptures(
      new SecureFieldLocator(),
      desktop,
      new Map([[fieldId, { ...field, y: field.y + 40 }]]),
    );
    // Every pixel of the app's window outside the window in front is filled; none inside.
    const filled = (x: number, y: number) =>
      r.frames.some((f) => x >= f.x && y >= f.y && x < f.x + f.w && y < f.y + f.h);
    for (const [x, y] of [
      [0, 0],
      [1279, 799],
      [698, 500],
      [900, 379],
      [900, 601],
      [field.x, field.y + 40],
    ]) {
      expect(filled(x, y), `(${x},${y})`).toBe(true);
    }
    for (const [x, y] of [
      [699, 380],
      [900, 500],
      [1100, 600],
    ]) {
      expect(filled(x, y), `(${x},${y}) is the window in front`).toBe(false);
    }
    expect(r.stale?.short).toBe(
      'windows of pid 3 filled whole where they show: a password field in them moved',
    );
  });

  it('a window in front in one listing only, or moved between them, leaves the window filled whole', async () => {
    const desktop = desktopWith([{ id: fieldId, frame: field }]);
    const moved = { ...FRONT, frame: { ...FRONT.frame, x: 100 }, outer: { ...FRONT.outer, x: 99 } };
    for (const around of [
      { before: [APP, FRONT], after: [FRONT, APP] },
      { before: [FRONT, APP], after: [moved, APP] },
    ]) {
      const r = await twoCaptures(
        new SecureFieldLocator(),
        desktop,
        new Map([[fieldId, { ...field, y: field.y + 40 }]]),
        around,
      );
      expect(r.frames).toContainEqual(APP.frame);
    }
  });
});
