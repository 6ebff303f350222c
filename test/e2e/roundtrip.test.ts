/**
 * The ax_get_tree round trip's faster paths give what the old one gave: a screenshot taken
 * as the walk starts (the app's region known from its last call) or as it ends, by MIT-SHM
 * rather than the framebuffer file, encoded while the password fields are located. Checked
 * on a window with a password field: the PNG's pixels are, byte for byte, what XGetImage
 * (and the framebuffer file, the old default) read of the same rect, except the field, which
 * is one flat colour where the app draws bullets; and the tree files of both paths are the
 * same apart from snapshot ids, timings and the screenshot line. The capture runs on a
 * worker thread (its own X connection): its pixels are those of the JS-thread paths. The
 * walked app's password fields come from its walk, the other apps' from a lookup: a
 * second app's field over the captured window is filled too, and no secret reaches a file.
 */
import fs from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session, type CallResult } from '../../src/harness/session.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { Rect } from '../../src/model/element.js';
import type { CaptureSource } from '../../src/platform/linux/x11.js';
import { X11 } from '../../src/platform/linux/x11.js';

let session: Session;
let x11: X11;
let app: LaunchedApp;
let field: Rect;

const rectOf = (f: unknown): Rect => {
  const [x, y, w, h] = f as number[];
  return { x, y, w, h };
};

beforeAll(async () => {
  session = await Session.start();
  app = await session.launchFixture('secret_window.py', [], {
    env: {
      AXPAGE_FIXTURE_SECRET: 'Roundtrip-s3cret-Kq8',
      AXPAGE_FIXTURE_TITLE: 'Round Trip',
      AXPAGE_FIXTURE_X: '60',
      AXPAGE_FIXTURE_Y: '50',
      AXPAGE_FIXTURE_MOVE_X: '420',
      AXPAGE_FIXTURE_MOVE_Y: '300',
    },
  });
  const ready = await app.output!.waitForEvent((e) => e.event === 'ready');
  field = rectOf(ready.field);
  const env = session.desktop.processEnv();
  x11 = X11.open(env.DISPLAY as string, { framebuffer: env.XVFB_FB ?? false });
  // The pointer out of every capture: the framebuffer file holds Xvfb's software cursor.
  const screen = x11.screenSize();
  x11.mouseMove(screen.w - 1, screen.h - 1);
}, 120_000);

afterAll(async () => {
  x11?.close();
  await session?.close();
});

async function getTree(): Promise<CallResult> {
  const r = await session.call('ax_get_tree', { app: app.pid });
  expect(r.isError, r.text).toBe(false);
  expect(r.fields.screenshot, r.text).toBeTruthy();
  return r;
}

function viewportOf(tree: string): Rect {
  const m = /^# viewport: (-?\d+),(-?\d+) (\d+)x(\d+)/m.exec(tree);
  expect(m, tree.slice(0, 400)).not.toBeNull();
  return { x: Number(m![1]), y: Number(m![2]), w: Number(m![3]), h: Number(m![4]) };
}

function takenAt(tree: string): string | undefined {
  return /^# screenshot: .* {2}taken: (walk start|walk end)$/m.exec(tree)?.[1];
}

/** The tree file without what differs between two calls on an unchanged app. */
function normalized(tree: string): string {
  return tree
    .replace(/snapshot: s[0-9a-z]+/g, 'snapshot: s?')
    .replace(/elapsed: [0-9.]+ ms/g, 'elapsed: ? ms')
    .replace(/^# screenshot: .*$/m, '# screenshot: ?');
}

/** Whether the screen point (x, y) lies in the rect. */
const inRect = (r: Rect, x: number, y: number): boolean =>
  x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h;

/**
 * Compares the PNG with a raw grab of the same rect by `source`: every pixel equal outside
 * the password fields; inside each, the PNG is one colour while the grab is not.
 */
async function expectSamePixels(
  png: string,
  vp: Rect,
  source: CaptureSource,
  fields: Rect[] = [field],
): Promise<void> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  expect([info.width, info.height]).toEqual([vp.w, vp.h]);
  const raw = x11.captureRegion(vp, source);
  expect([raw.width, raw.height]).toEqual([vp.w, vp.h]);
  let differing = 0;
  const fieldColours = fields.map(() => new Set<string>());
  const grabColours = fields.map(() => new Set<string>());
  for (let y = 0; y < vp.h; y++) {
    for (let x = 0; x < vp.w; x++) {
      const a = (y * vp.w + x) * info.channels;
      const b = (y * vp.w + x) * 3;
      const px = `${data[a]},${data[a + 1]},${data[a + 2]}`;
      const rawPx = `${raw.data[b]},${raw.data[b + 1]},${raw.data[b + 2]}`;
      const k = fields.findIndex((f) => inRect(f, vp.x + x, vp.y + y));
      if (k >= 0) {
        fieldColours[k].add(px);
        grabColours[k].add(rawPx);
      } else if (px !== rawPx) differing++;
    }
  }
  expect(differing, `pixels outside the fields that differ from the ${source} grab`).toBe(0);
  fields.forEach((f, k) => {
    expect(
      grabColours[k].size,
      `the app draws its bullets in ${JSON.stringify(f)}`,
    ).toBeGreaterThan(1);
    expect(fieldColours[k].size, `${JSON.stringify(f)} is filled in ${png}`).toBe(1);
  });
}

describe('ax_get_tree: the screenshot overlapping the walk', () => {
  const trees: string[] = [];

  it('the first call takes it as the walk ends, the next as the walk starts', async () => {
    const first = await getTree();
    const second = await getTree();
    const third = await getTree();
    for (const r of [first, second, third]) trees.push(fs.readFileSync(r.fields.file, 'utf8'));
    expect(takenAt(trees[0])).toBe('walk end');
    expect(takenAt(trees[1])).toBe('walk start');
    expect(takenAt(trees[2])).toBe('walk start');
    // The field lies inside the captured window: the comparisons below cover redaction.
    const vp = viewportOf(trees[1]);
    expect(inRect(vp, field.x, field.y) && inRect(vp, field.x + field.w - 1, field.y)).toBe(true);
    for (const r of [first, second, third]) {
      for (const source of ['getimage', 'shm', 'framebuffer'] as const) {
        if (source === 'framebuffer' && !x11.usesFramebuffer) continue;
        await expectSamePixels(r.fields.screenshot, viewportOf(trees[0]), source);
      }
    }
  }, 120_000);

  it('gives the same tree file either way, apart from ids, timings and the screenshot line', () => {
    expect(trees).toHaveLength(3);
    expect(normalized(trees[1])).toBe(normalized(trees[0]));
    expect(normalized(trees[2])).toBe(normalized(trees[0]));
    expect(normalized(trees[0])).toContain('# tree');
  });

  it('a window moved since the last call: taken after the walk, its field filled at the new spot', async () => {
    const from = app.output!.events.length;
    process.kill(app.pid, 'SIGUSR1');
    const moved = await app.output!.waitForEvent((e) => e.event === 'moved', { from });
    const before = field;
    field = rectOf(moved.field);
    expect(field).not.toEqual(before);
    const r = await getTree();
    const tree = fs.readFileSync(r.fields.file, 'utf8');
    expect(takenAt(tree)).toBe('walk end');
    await expectSamePixels(r.fields.screenshot, viewportOf(tree), 'getimage');
    const again = await getTree();
    const treeAgain = fs.readFileSync(again.fields.file, 'utf8');
    expect(takenAt(treeAgain)).toBe('walk start');
    await expectSamePixels(again.fields.screenshot, viewportOf(treeAgain), 'getimage');
  }, 120_000);
});

/** The rect's part inside `within`. */
function clip(r: Rect, within: Rect): Rect {
  const x = Math.max(r.x, within.x);
  const y = Math.max(r.y, within.y);
  const w = Math.min(r.x + r.w, within.x + within.w) - x;
  const h = Math.min(r.y + r.h, within.y + within.h) - y;
  return { x, y, w, h };
}

/** Every file in the artifact dir, whole, as bytes. */
function artifactBytes(): Array<{ name: string; bytes: Buffer }> {
  const dir = session.artifactDir;
  return fs.readdirSync(dir).flatMap((name) => {
    const file = `${dir}/${name}`;
    return fs.statSync(file).isFile() ? [{ name, bytes: fs.readFileSync(file) }] : [];
  });
}

describe('the capture off the JS thread', () => {
  it('reads the pixels the JS-thread paths read, clips alike, and refuses a rect off screen', async () => {
    const screen = x11.screenSize();
    const rect = { x: -20, y: -10, w: 300, h: 200 };
    const [a, b, c] = await Promise.all([
      x11.captureRegionAsync(rect),
      x11.captureRegionAsync(rect),
      x11.captureRegionAsync({ x: 0, y: 0, w: screen.w, h: screen.h }),
    ]);
    const sync = x11.captureRegion(rect, 'getimage');
    for (const img of [a, b]) {
      expect([img.x, img.y, img.width, img.height]).toEqual([0, 0, 280, 190]);
      expect(img.data.equals(sync.data), 'worker pixels equal an XGetImage grab').toBe(true);
    }
    expect([c.width, c.height]).toEqual([screen.w, screen.h]);
    await expect(x11.captureRegionAsync({ x: screen.w + 10, y: 0, w: 10, h: 10 })).rejects.toThrow(
      RangeError,
    );
  }, 60_000);
});

describe('password fields: the walked app from its walk, every other app in the region looked up', () => {
  const TARGET_SECRET = 'Walked-pw-Zr41x';
  const OTHER_SECRET = 'Other-app-pw-Jm93q';
  let target: LaunchedApp;
  let targetField: Rect;
  let otherField: Rect;

  beforeAll(async () => {
    target = await session.launchFixture('secret_window.py', [], {
      env: {
        AXPAGE_FIXTURE_SECRET: TARGET_SECRET,
        AXPAGE_FIXTURE_TITLE: 'Walked App',
        AXPAGE_FIXTURE_X: '40',
        AXPAGE_FIXTURE_Y: '420',
      },
    });
    targetField = rectOf((await target.output!.waitForEvent((e) => e.event === 'ready')).field);
    // Launched second: its window is stacked over the target's lower right part, its
    // field inside the target's window and clear of the target's field.
    const other = await session.launchFixture('secret_window.py', [], {
      env: {
        AXPAGE_FIXTURE_SECRET: OTHER_SECRET,
        AXPAGE_FIXTURE_TITLE: 'Other App',
        AXPAGE_FIXTURE_X: '180',
        AXPAGE_FIXTURE_Y: '500',
      },
    });
    otherField = rectOf((await other.output!.waitForEvent((e) => e.event === 'ready')).field);
  }, 120_000);

  it('fills both fields, as the walk ends and as it starts, and writes neither secret', async () => {
    const taken: Array<string | undefined> = [];
    for (let i = 0; i < 2; i++) {
      const r = await session.call('ax_get_tree', { app: target.pid });
      expect(r.isError, r.text).toBe(false);
      expect(r.fields.screenshot, r.text).toBeTruthy();
      const tree = fs.readFileSync(r.fields.file, 'utf8');
      taken.push(takenAt(tree));
      const vp = viewportOf(tree);
      const inside = clip(otherField, vp);
      expect(inside.w > 0 && inside.h > 0, "the other app's field shows in the capture").toBe(true);
      await expectSamePixels(r.fields.screenshot, vp, 'getimage', [targetField, inside]);
    }
    expect(taken).toEqual(['walk end', 'walk start']);
    for (const { name, bytes } of artifactBytes()) {
      for (const secret of [TARGET_SECRET, OTHER_SECRET]) {
        expect(bytes.includes(secret), `${secret} in ${name}`).toBe(false);
      }
    }
  }, 120_000);
});
