import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_POLICY, Policy } from '../../src/guard/policy.js';
import { DeniedApps, subtractRects } from '../../src/pipeline/denied.js';
import type { AppInfo, Desktop, DesktopWindow } from '../../src/platform/desktop.js';

const app = (pid: number, name: string): AppInfo => ({ pid, name, windows: 1, active: false });
const win = (pid: number, x: number, y: number, title = `w${pid}`): DesktopWindow => ({
  pid,
  title,
  frame: { x, y, w: 100, h: 100 },
  active: false,
});

/** A desktop with these apps and windows (front to back), recording what is sent. */
function desktopWith(apps: AppInfo[], windows: DesktopWindow[]) {
  const sent: string[] = [];
  const asked = { listApps: 0 };
  const desktop = {
    listApps: async () => {
      asked.listApps++;
      return apps;
    },
    listWindows: async () => windows,
    click: async (x: number, y: number) => void sent.push(`click ${x},${y}`),
    scroll: async (x: number, y: number) => void sent.push(`scroll ${x},${y}`),
    drag: async (a: { x: number }, b: { x: number }) => void sent.push(`drag ${a.x}->${b.x}`),
  } as unknown as Desktop;
  return { desktop, sent, asked };
}

const denying = (...denyApps: string[]) =>
  new DeniedApps(new Policy({ ...DEFAULT_POLICY, denyApps }));

describe('DeniedApps', () => {
  const apps = [app(10, 'vault'), app(20, 'editor'), app(30, 'vault-helper')];
  // 10's window lies over 20's at (50..100, 50..100); 40 has no accessibility.
  const windows = [win(10, 0, 0), win(20, 50, 50), win(40, 300, 300), win(30, 600, 0)];

  it('knows denied pids by pid or registered name, asking for names only when needed', async () => {
    const { desktop, asked } = desktopWith(apps, windows);
    expect(await denying('40').deniedPids(desktop, [10, 40])).toEqual(new Set([40]));
    expect(asked.listApps).toBe(1);
    expect(await denying('40').deniedPids(desktop, [40])).toEqual(new Set([40]));
    expect(asked.listApps).toBe(1);
    expect(await denying('vault*').deniedPids(desktop, [10, 20, 30, 40])).toEqual(
      new Set([10, 30]),
    );
    expect(asked.listApps).toBe(2);
    // Apps the backend already talks to are judged by the name it knows, with no listing.
    const knowing = {
      ...desktop,
      knownApp: async (pid: number) => apps.find((a) => a.pid === pid) ?? null,
    };
    expect(await denying('vault*').deniedPids(knowing as Desktop, [10, 20, 30])).toEqual(
      new Set([10, 30]),
    );
    expect(asked.listApps).toBe(2);
    expect(await denying().windowFrames(desktop)).toEqual([]);
  });

  it('denies what a denied program started while it runs, unless an allowed app is nearer', async () => {
    // 50: a helper 10 (vault) started; 60: one it started through a shell (55); 70: the
    // editor's (20); 80: started by the editor, which 10 started; 90: started by a denied
    // command-line program (95, no app) that the editor started.
    const parents: Record<number, number[]> = {
      50: [10],
      55: [10],
      60: [55, 10],
      70: [20],
      80: [20, 10],
      90: [95, 20],
    };
    const family = [
      ...apps,
      app(50, 'zenity'),
      app(60, 'pinentry'),
      app(70, 'zenity'),
      app(80, 'viewer'),
      app(90, 'askpass'),
    ];
    const { desktop } = desktopWith(family, windows);
    const knowing = {
      ...desktop,
      knownApp: async (pid: number) => family.find((a) => a.pid === pid) ?? null,
      appByPid: async (pid: number) => family.find((a) => a.pid === pid) ?? null,
    } as unknown as Desktop;
    const lineage = (...denyApps: string[]) =>
      new DeniedApps(
        new Policy(
          { ...DEFAULT_POLICY, denyApps },
          Date.now,
          undefined,
          undefined,
          (pid) => parents[pid] ?? [],
        ),
      );
    expect(await lineage('vault', '95').visibleApps(desktop, family)).toEqual({
      apps: [family[1], family[2], family[5], family[6]],
      leftOut: 4,
    });
    expect(await lineage('vault', '95').deniedPids(knowing, [50, 60, 70, 80, 90, 20])).toEqual(
      new Set([50, 60, 90]),
    );
    // Named by pid, its children go with it.
    expect(await lineage('10').deniedPids(knowing, [60, 70])).toEqual(new Set([60]));
    const hidden = lineage('vault').hideApps(knowing);
    expect(await hidden.appByPid!(50)).toBeNull();
    expect(await hidden.knownApp!(60)).toBeNull();
    expect(await hidden.appByPid!(70)).toMatchObject({ pid: 70 });
    expect((await hidden.listApps()).map((a) => a.pid)).toEqual([20, 30, 70, 80, 90]);
    // Without its forebears known, a helper is judged by itself alone.
    expect(await denying('vault').deniedPids(knowing, [50])).toEqual(new Set());
  });

  describe('a capture without one-instant windows (a Wayland session)', () => {
    const MAGENTA = [255, 0, 255];
    /** 300x200 RGB: white, with a magenta block where the denied window drew. */
    const shot = (drawn: { x: number; y: number; w: number; h: number }) => {
      const width = 300;
      const height = 200;
      const data = Buffer.alloc(width * height * 3, 255);
      for (let y = drawn.y; y < drawn.y + drawn.h; y++) {
        for (let x = drawn.x; x < drawn.x + drawn.w; x++) {
          data.set(MAGENTA, (y * width + x) * 3);
        }
      }
      return { width, height, channels: 3 as const, data };
    };
    const at = (image: { width: number; data: Buffer }, x: number, y: number) => [
      ...image.data.subarray((y * image.width + x) * 3, (y * image.width + x) * 3 + 3),
    ];
    /** A desktop whose window listings come from `listings` in turn (the last repeats). */
    const flashing = (
      listings: DesktopWindow[][],
      drawn: { x: number; y: number; w: number; h: number },
    ) => {
      let n = 0;
      return {
        listApps: async () => apps,
        listWindows: async () => listings[Math.min(n++, listings.length - 1)],
        capture: async () => shot(drawn),
      } as unknown as Desktop;
    };

    it('fills with one fixed colour, whole while a denied window maps or moves, then only it', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(1_000_000);
        const denied = denying('vault');
        // Absent before the pixels, listed after: its first frame may be anywhere (here
        // it drew at the corner, where no listing puts it).
        const appears = [[win(20, 150, 100)], [win(10, 100, 0), win(20, 150, 100)]];
        const steady = [win(10, 100, 0), win(20, 150, 100)];
        const drawn = { x: 0, y: 0, w: 60, h: 20 };
        const first = await denied.keepOut(flashing([...appears], drawn)).capture();
        for (const [x, y] of [
          [10, 10],
          [150, 50],
          [290, 190],
        ]) {
          // Never a mean of the ring (which holds its colour here).
          expect(at(first, x, y), `${x},${y}`).toEqual([128, 128, 128]);
        }
        // Still within the linger after it stopped changing: whole again.
        vi.setSystemTime(1_001_000);
        const soon = await denied.keepOut(flashing([steady], drawn)).capture();
        expect(at(soon, 290, 190)).toEqual([128, 128, 128]);
        // Kept still since: only its window, where both listings put it.
        vi.setSystemTime(1_003_000);
        const later = await denied.keepOut(flashing([steady], drawn)).capture();
        expect(at(later, 150, 50)).toEqual([128, 128, 128]);
        expect(at(later, 290, 190)).toEqual([255, 255, 255]);
        expect(at(later, 10, 10)).not.toEqual([128, 128, 128]);
        // It moves: whole again.
        vi.setSystemTime(1_006_000);
        const moved = [[win(10, 100, 0)], [win(10, 0, 0)]];
        const moving = await denied.keepOut(flashing(moved, drawn)).capture();
        expect(at(moving, 290, 190)).toEqual([128, 128, 128]);
      } finally {
        vi.useRealTimers();
      }
    });
  });

  it('gives the frames of every denied window, for captures to fill whole', async () => {
    const { desktop } = desktopWith(apps, windows);
    expect(await denying('vault').windowFrames(desktop)).toEqual([windows[0].frame]);
  });

  it('takes a window with its title bar and borders, where the window manager gives them', async () => {
    // 10's title bar (y -20..0) lies over nothing of its client area; 20 in front covers part of it.
    const framed = { ...win(10, 0, 20), outer: { x: -2, y: 0, w: 104, h: 122 } };
    const front = { ...win(20, 50, 0), outer: { x: 50, y: -10, w: 100, h: 30 } };
    const { desktop, sent } = desktopWith(apps, [front, framed]);
    const denied = denying('vault');
    expect(await denied.windowFrames(desktop)).toEqual([
      { x: -2, y: 20, w: 104, h: 102 },
      { x: -2, y: 0, w: 52, h: 20 },
    ]);
    const guarded = denied.guardPointer(desktop);
    await expect(guarded.click(10, 5, 'left', 2)).rejects.toThrow(/policy blocks/);
    await guarded.click(60, 5, 'left', 1);
    expect(sent).toEqual(['click 60,5']);
  });

  it("leaves out the parts of a denied window that other apps' windows in front cover", async () => {
    // 20 in front of 10: 10 shows only outside (50..150, 50..150); 30 denied too, in front.
    const stack = [win(30, 0, 0), win(20, 50, 50), win(10, 0, 0)];
    const { desktop } = desktopWith(apps, stack);
    expect(await denying('vault*').windowFrames(desktop)).toEqual([
      { x: 0, y: 0, w: 100, h: 100 },
      { x: 0, y: 0, w: 100, h: 50 },
      { x: 0, y: 50, w: 50, h: 50 },
    ]);
  });

  it('subtracts rects into disjoint bands', () => {
    const base = { x: 0, y: 0, w: 100, h: 100 };
    expect(subtractRects(base, [])).toEqual([base]);
    expect(subtractRects(base, [{ x: 200, y: 0, w: 10, h: 10 }])).toEqual([base]);
    expect(subtractRects(base, [{ x: -5, y: -5, w: 200, h: 200 }])).toEqual([]);
    const hole = subtractRects(base, [{ x: 40, y: 40, w: 20, h: 20 }]);
    expect(hole).toEqual([
      { x: 0, y: 0, w: 100, h: 40 },
      { x: 0, y: 60, w: 100, h: 40 },
      { x: 0, y: 40, w: 40, h: 20 },
      { x: 60, y: 40, w: 40, h: 20 },
    ]);
    expect(hole.reduce((n, r) => n + r.w * r.h, 0)).toBe(100 * 100 - 20 * 20);
  });

  it('refuses a pointer event whose point is on a denied window in front, before sending', async () => {
    const { desktop, sent } = desktopWith(apps, windows);
    const guarded = denying('vault').guardPointer(desktop);
    await expect(guarded.click(60, 60, 'left', 1)).rejects.toMatchObject({ code: 'blocked' });
    await expect(guarded.scroll(5, 5, 0, 1)).rejects.toMatchObject({ code: 'blocked' });
    await expect(guarded.drag({ x: 150, y: 150 }, { x: 20, y: 20 }, 10)).rejects.toMatchObject({
      code: 'blocked',
    });
    expect(sent).toEqual([]);
    // 20's own pixels, uncovered; a point on no window at all.
    await guarded.click(120, 120, 'left', 1);
    await guarded.click(900, 700, 'left', 1);
    expect(sent).toEqual(['click 120,120', 'click 900,700']);
  });

  it('lists allowed apps and windows only, counting what it left out', async () => {
    const { desktop } = desktopWith(apps, windows);
    const denied = denying('vault');
    expect(await denied.visibleApps(desktop, apps)).toEqual({
      apps: [apps[1], apps[2]],
      leftOut: 1,
    });
    expect((await denied.visibleWindows(desktop, windows)).map((w) => w.pid)).toEqual([20, 40, 30]);
    const hidden = denied.hideApps(desktop);
    expect((await hidden.listApps()).map((a) => a.pid)).toEqual([20, 30]);
    expect(denying().hideApps(desktop)).toBe(desktop);
  });
});
