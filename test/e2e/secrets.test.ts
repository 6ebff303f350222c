/**
 * Secrets end to end: apps each holding a known password, every capture path (full
 * screen, region, a window another app's password field overlaps, the ax_list_apps
 * screenshot, a window moved since the last walk, an app that stops answering, a field
 * still on screen under a window raised over it that has not repainted), and for
 * each PNG the pixels of every password field's rectangle, as the app itself places it:
 * one flat colour, where the app really draws its bullets (checked on an unredacted grab
 * of the same pixels). Every artifact, summary and structured result is searched for both
 * secrets and their lengths.
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session, type CallResult } from '../../src/harness/session.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { Rect } from '../../src/model/element.js';
import type { RawImage } from '../../src/platform/desktop.js';
import { X11 } from '../../src/platform/linux/x11.js';
import { coloursIn, decodePng } from './helpers/pixels.js';

// Lengths no other number on these screens is likely to share.
const SECRET_A = 'Alpha-s3cret-Qx7#unique'; // 23
const SECRET_B = 'Bravo-p4ss-Zw9!unique-Bee-2ab'; // 29
const SECRET_C = 'Charlie-und3r-Kq5%unique-Cee-31x'; // 32
const SECRET_D = 'Delta-ab0ve-Vb8&uniq-Dee'; // 24

let session: Session;
let x11: X11;
let appA: LaunchedApp;
let appB: LaunchedApp;
/** Each app's password field on screen, as the app reported it last. */
const field: Record<'A' | 'B' | 'C' | 'D', Rect> = {
  A: { x: 0, y: 0, w: 0, h: 0 },
  B: { x: 0, y: 0, w: 0, h: 0 },
  C: { x: 0, y: 0, w: 0, h: 0 },
  D: { x: 0, y: 0, w: 0, h: 0 },
};
const results: CallResult[] = [];

const rectOf = (f: unknown): Rect => {
  const [x, y, w, h] = f as number[];
  return { x, y, w, h };
};

async function launch(
  secret: string,
  title: string,
  at: [number, number],
  moveTo: [number, number],
  size: [number, number] = [360, 200],
): Promise<{ app: LaunchedApp; field: Rect }> {
  const app = await session.launchFixture('secret_window.py', [], {
    env: {
      AXPAGE_FIXTURE_SECRET: secret,
      AXPAGE_FIXTURE_TITLE: title,
      AXPAGE_FIXTURE_X: String(at[0]),
      AXPAGE_FIXTURE_Y: String(at[1]),
      AXPAGE_FIXTURE_MOVE_X: String(moveTo[0]),
      AXPAGE_FIXTURE_MOVE_Y: String(moveTo[1]),
      AXPAGE_FIXTURE_W: String(size[0]),
      AXPAGE_FIXTURE_H: String(size[1]),
    },
  });
  const ready = await app.output!.waitForEvent((e) => e.event === 'ready');
  return { app, field: rectOf(ready.field) };
}

async function call(tool: string, args: Record<string, unknown>): Promise<CallResult> {
  const r = await session.call(tool, args);
  results.push(r);
  return r;
}

beforeAll(async () => {
  session = await Session.start();
  // A first, B second: B's window is in front and its password field lies over A's window.
  const a = await launch(SECRET_A, 'Secret A', [40, 40], [40, 40]);
  const b = await launch(SECRET_B, 'Secret B', [200, 130], [700, 420]);
  appA = a.app;
  appB = b.app;
  field.A = a.field;
  field.B = b.field;
  x11 = X11.open(session.desktop.processEnv().DISPLAY as string, { framebuffer: false });
});

afterAll(async () => {
  x11?.close();
  await session?.close();
});

/** The field's inside (3 px in from its frame) on the part of the screen the image shows. */
function insideOn(f: Rect, origin: { x: number; y: number }, img: RawImage): Rect | null {
  const x0 = Math.max(f.x + 3, origin.x);
  const y0 = Math.max(f.y + 3, origin.y);
  const x1 = Math.min(f.x + f.w - 3, origin.x + img.width);
  const y1 = Math.min(f.y + f.h - 3, origin.y + img.height);
  return x1 > x0 && y1 > y0 ? { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } : null;
}

/**
 * Both the screenshot's pixels over the field are one colour, and the app really draws
 * something there now (an unredacted grab of the same pixels has its bullets): without
 * redaction this fails.
 */
async function expectFilled(
  png: string,
  origin: { x: number; y: number },
  which: keyof typeof field,
) {
  const img = await decodePng(png);
  const inside = insideOn(field[which], origin, img);
  expect(inside, `field ${which} ${JSON.stringify(field[which])} is on the capture`).not.toBeNull();
  const raw = x11.captureRegion(inside!);
  expect(coloursIn(raw, inside!, inside!), `app ${which} draws its bullets there`).toBeGreaterThan(
    1,
  );
  expect(coloursIn(img, origin, inside!), `field ${which} filled in ${png}`).toBe(1);
}

function viewportOf(treeFile: string): Rect {
  const m = /# viewport: (-?\d+),(-?\d+) (\d+)x(\d+)/.exec(fs.readFileSync(treeFile, 'utf8'));
  expect(m, treeFile).not.toBeNull();
  return { x: Number(m![1]), y: Number(m![2]), w: Number(m![3]), h: Number(m![4]) };
}

describe('password fields are filled in every capture', () => {
  it('full screen: both apps', async () => {
    const r = await call('ax_screenshot', { app: appA.pid, full_screen: true });
    expect(r.isError, r.text).toBe(false);
    await expectFilled(r.fields.screenshot, { x: 0, y: 0 }, 'A');
    await expectFilled(r.fields.screenshot, { x: 0, y: 0 }, 'B');
  });

  it('a region holding both fields', async () => {
    const region = {
      x: Math.min(field.A.x, field.B.x) - 10,
      y: Math.min(field.A.y, field.B.y) - 10,
      w:
        Math.max(field.A.x + field.A.w, field.B.x + field.B.w) -
        Math.min(field.A.x, field.B.x) +
        20,
      h:
        Math.max(field.A.y + field.A.h, field.B.y + field.B.h) -
        Math.min(field.A.y, field.B.y) +
        20,
    };
    const r = await call('ax_screenshot', { app: appA.pid, region });
    expect(r.isError, r.text).toBe(false);
    await expectFilled(r.fields.screenshot, region, 'A');
    await expectFilled(r.fields.screenshot, region, 'B');
  });

  it("a window capture of A that B's password field overlaps", async () => {
    const r = await call('ax_screenshot', { app: appA.pid });
    expect(r.isError, r.text).toBe(false);
    const vp = viewportOf(r.fields.file);
    const meta = await sharp(r.fields.screenshot).metadata();
    expect([meta.width, meta.height]).toEqual([vp.w, vp.h]);
    // The capture is A's window, and B's field reaches into it.
    expect(field.B.x).toBeLessThan(vp.x + vp.w);
    expect(field.B.y).toBeLessThan(vp.y + vp.h);
    await expectFilled(r.fields.screenshot, vp, 'A');
    await expectFilled(r.fields.screenshot, vp, 'B');
  });

  it('the ax_list_apps screenshot', async () => {
    const r = await call('ax_list_apps', {});
    expect(r.isError, r.text).toBe(false);
    expect(r.fields.screenshot).toBeTruthy();
    await expectFilled(r.fields.screenshot, { x: 0, y: 0 }, 'A');
    await expectFilled(r.fields.screenshot, { x: 0, y: 0 }, 'B');
  });

  it('a window moved since the last walk: its field is filled at its new spot', async () => {
    const walked = await call('ax_get_tree', { app: appB.pid });
    expect(walked.isError, walked.text).toBe(false);
    const from = appB.output!.events.length;
    process.kill(appB.pid, 'SIGUSR1');
    const moved = await appB.output!.waitForEvent((e) => e.event === 'moved', { from });
    const before = field.B;
    field.B = rectOf(moved.field);
    expect(field.B).not.toEqual(before);
    const full = await call('ax_screenshot', { app: appB.pid, full_screen: true });
    expect(full.isError, full.text).toBe(false);
    await expectFilled(full.fields.screenshot, { x: 0, y: 0 }, 'B');
    const region = { x: field.B.x - 20, y: field.B.y - 20, w: field.B.w + 40, h: field.B.h + 40 };
    const part = await call('ax_screenshot', { app: appA.pid, region });
    expect(part.isError, part.text).toBe(false);
    await expectFilled(part.fields.screenshot, region, 'B');
  });

  it('an app that stops answering: its windows are filled whole, and the call says so', async () => {
    process.kill(appB.pid, 'SIGSTOP');
    try {
      // The first capture waits for it (bounded); the next ones do not wait on it again.
      for (let i = 0; i < 2; i++) {
        const r = await call('ax_screenshot', { app: appA.pid, full_screen: true });
        expect(r.isError, r.text).toBe(false);
        expect(r.text).toContain(`windows of pid ${appB.pid} filled whole`);
        expect(fs.readFileSync(r.fields.file, 'utf8')).toMatch(
          new RegExp(
            `# note: .*filled whole: password fields not located in time \\(pid ${appB.pid}: `,
          ),
        );
        await expectFilled(r.fields.screenshot, { x: 0, y: 0 }, 'A');
        await expectFilled(r.fields.screenshot, { x: 0, y: 0 }, 'B');
      }
      const listed = await call('ax_list_apps', {});
      expect(listed.text).toContain(`windows of pid ${appB.pid} filled whole`);
      expect(fs.readFileSync(listed.fields.file, 'utf8')).toMatch(/# note: .*filled whole/);
      await expectFilled(listed.fields.screenshot, { x: 0, y: 0 }, 'B');
    } finally {
      process.kill(appB.pid, 'SIGCONT');
    }
    // Once it answers again, a capture locates its fields fresh (no note) and fills them.
    let fresh: CallResult | undefined;
    for (let i = 0; i < 20 && !fresh; i++) {
      const r = await call('ax_screenshot', { app: appA.pid, full_screen: true });
      if (!r.text.includes('filled whole')) fresh = r;
    }
    expect(fresh, 'a capture without the stale note').toBeDefined();
    await expectFilled(fresh!.fields.screenshot, { x: 0, y: 0 }, 'B');
  });
});

describe('a window raised over a password field', () => {
  it('that has not repainted still shows the field: the capture fills it', async () => {
    // D (large) first, then C in front of it, away from A and B.
    const d = await launch(SECRET_D, 'Secret D', [780, 20], [780, 20], [460, 300]);
    const c = await launch(SECRET_C, 'Secret C', [800, 60], [800, 60]);
    field.C = c.field;
    field.D = d.field;
    const inside = { x: c.field.x + 3, y: c.field.y + 3, w: c.field.w - 6, h: c.field.h - 6 };
    const shown = x11.captureRegion(inside).data;
    const win = x11.listWindows().find((w) => w.mapped && w.pid === d.app.pid)!;
    // Frozen, D cannot repaint: raised over C, its window keeps what was there.
    process.kill(d.app.pid, 'SIGSTOP');
    try {
      expect((await x11.activate(win.window)).active).toBe(true);
      const front = x11.listWindows().filter((w) => w.mapped);
      expect(front[0].pid, 'D in front').toBe(d.app.pid);
      expect(
        x11.captureRegion(inside).data.equals(shown),
        "X still shows C's field, bullets and all",
      ).toBe(true);
      const region = { x: c.field.x - 10, y: c.field.y - 10, w: c.field.w + 20, h: c.field.h + 20 };
      const r = await call('ax_screenshot', { app: appA.pid, region });
      expect(r.isError, r.text).toBe(false);
      await expectFilled(r.fields.screenshot, region, 'C');
      // D, frozen, could not say where its own field is: the call says so.
      expect(r.text).toContain(`windows of pid ${d.app.pid} filled whole`);
    } finally {
      process.kill(d.app.pid, 'SIGCONT');
    }
  });
});

describe('no secret and no secret length anywhere', () => {
  it('reads and typing on the password fields tell neither', async () => {
    for (const [app, secret] of [
      [appA, SECRET_A],
      [appB, SECRET_B],
    ] as const) {
      const said = (r: CallResult): string => `${r.text}\n${JSON.stringify(r.structured)}`;
      const found = await call('ax_find', { app: app.pid, query: 'password:Password' });
      expect(found.isError, found.text).toBe(false);
      expect(found.structured).toMatchObject({ found: true, count: 1, title: 'Password' });
      const value = await call('ax_get_value', { app: app.pid, query: 'password:Password' });
      expect(value.isError, value.text).toBe(false);
      // The field was read, and its value is a fixed mask: as many bullets as the secret
      // has characters would tell its length.
      expect(value.structured).toMatchObject({ found: true, secure: true, value: '•••' });
      const attrs = await call('ax_get_attributes', { app: app.pid, query: 'password:Password' });
      expect(attrs.isError, attrs.text).toBe(false);
      const attributes = attrs.structured.attributes as Record<string, unknown>;
      expect(attributes).toMatchObject({ native_role: 'password text', value: '•••' });
      for (const r of [found, value, attrs]) {
        expect(said(r)).not.toContain(secret);
        expect(said(r)).not.toMatch(new RegExp(`\\b${secret.length} (chars|characters)\\b`));
        expect(said(r)).not.toMatch(new RegExp(`"length":\\s*${secret.length}\\b`));
      }
    }
    const from = appB.output!.events.length;
    const typed = await call('ax_type', { app: appB.pid, query: 'password:Password', text: 'zz' });
    expect(typed.isError, typed.text).toBe(false);
    // The app saw the typing (its own output), and the summary names no count.
    await appB.output!.waitForEvent((e) => e.event === 'changed', { from });
    expect(typed.text).not.toMatch(/\d+ chars/);
  });

  it('no artifact, summary or structured result holds a secret or its length', () => {
    const texts = results.map((r) => `${r.text}\n${JSON.stringify(r.structured)}`);
    const files = fs
      .readdirSync(session.artifactDir)
      .map((f) => path.join(session.artifactDir, f))
      .filter((f) => fs.statSync(f).isFile());
    expect(files.length).toBeGreaterThan(results.length);
    for (const f of files) texts.push(fs.readFileSync(f).toString('latin1'));
    for (const text of texts) {
      for (const secret of [SECRET_A, SECRET_B, `${SECRET_B}zz`, SECRET_C, SECRET_D]) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(secret.slice(0, 12));
        for (const n of [secret.length, secret.length + 2]) {
          expect(text).not.toMatch(
            new RegExp(`\\b${n} (chars|characters)\\b|"length":\\s*${n}\\b`),
          );
        }
      }
    }
  });
});
