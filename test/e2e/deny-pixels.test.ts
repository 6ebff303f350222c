/**
 * The deny list is a property of pixels and processes: with an app denied, a pointer event
 * through another (allowed) app at the denied app's pixels is refused before anything is
 * sent (the denied app's own output shows nothing arrived), every capture fills its window
 * whole, title bar too (checked on the PNG against the screen), its title bar takes no click, and no listing, resource, completion or
 * error names it or its window titles; listings say how many apps they left out.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session, type CallResult } from '../../src/harness/session.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { Rect } from '../../src/model/element.js';
import { X11 } from '../../src/platform/linux/x11.js';
import { pollUntil } from '../../src/desktop/procs.js';
import { viewportOf } from './helpers/oracle.js';
import { coloursIn, decodePng } from './helpers/pixels.js';

const DENIED_TITLE = 'Vault Qz7 Ledger';

let session: Session;
let x11: X11;
let allowed: LaunchedApp;
let denied: LaunchedApp;
let allowedField: Rect;
let toggle: Rect;
const results: CallResult[] = [];

const rectOf = (f: unknown): Rect => {
  const [x, y, w, h] = f as number[];
  return { x, y, w, h };
};
const centre = (r: Rect) => ({ x: Math.round(r.x + r.w / 2), y: Math.round(r.y + r.h / 2) });

async function call(tool: string, args: Record<string, unknown>): Promise<CallResult> {
  const r = await session.call(tool, args);
  results.push(r);
  return r;
}

/** The client area of the X window of `pid`, 1 px in from its edges. */
function windowOf(pid: number): Rect {
  const w = x11.listWindows().find((w) => w.mapped && w.pid === pid);
  expect(w, `a window of pid ${pid}`).toBeDefined();
  return { x: w!.x + 1, y: w!.y + 1, w: w!.w - 2, h: w!.h - 2 };
}

const intersect = (a: Rect, b: Rect): Rect | null => {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const w = Math.min(a.x + a.w, b.x + b.w) - x;
  const h = Math.min(a.y + a.h, b.y + b.h) - y;
  return w > 0 && h > 0 ? { x, y, w, h } : null;
};

const toggles = () => (denied.output?.events ?? []).filter((e) => e.event === 'toggled');

beforeAll(async () => {
  session = await Session.start({ serverEnv: { AXPAGE_DENY_APPS: 'passphrase.py,xmessage' } });
  allowed = await session.launchFixture('secret_window.py', [], {
    env: { AXPAGE_FIXTURE_TITLE: 'Allowed Ledger', AXPAGE_FIXTURE_X: '40', AXPAGE_FIXTURE_Y: '40' },
  });
  allowedField = rectOf(allowed.output!.events.find((e) => e.event === 'ready')!.field);
  denied = await session.launchFixture('passphrase.py', [], {
    env: { AXPAGE_FIXTURE_TITLE: DENIED_TITLE, AXPAGE_FIXTURE_X: '600', AXPAGE_FIXTURE_Y: '300' },
  });
  toggle = rectOf(denied.output!.events.find((e) => e.event === 'ready')!.toggle);
  x11 = X11.open(session.desktop.processEnv().DISPLAY as string, { framebuffer: false });
}, 60_000);

afterAll(async () => {
  x11?.close();
  await session?.close();
});

describe('a denied app', () => {
  it('is never clicked through another app at its pixels; the allowed app still is', async () => {
    for (const clickType of ['single', 'double'] as const) {
      const r = await call('ax_click_at', {
        app: allowed.pid,
        ...centre(toggle),
        click_type: clickType,
        delivery_mode: 'foreground',
      });
      expect(r.isError, r.text).toBe(true);
      expect(r.structured.error_code).toBe('blocked');
      expect(r.fields.error).toMatch(/is on a window of an app this server's policy blocks/);
    }
    const own = await call('ax_click_at', {
      app: allowed.pid,
      ...centre(allowedField),
      delivery_mode: 'foreground',
    });
    expect(own.isError, own.text).toBe(false);
    // The allowed click was sent and judged after the refused ones: they never came.
    expect(toggles()).toEqual([]);
  });

  it('is filled whole in a full-screen and a region capture', async () => {
    const win = windowOf(denied.pid);
    const full = await call('ax_screenshot', { app: allowed.pid, full_screen: true });
    expect(full.isError, full.text).toBe(false);
    const raw = x11.captureRegion(win);
    expect(coloursIn(raw, win, win), 'the denied window shows its content').toBeGreaterThan(1);
    const img = await decodePng(full.fields.screenshot);
    expect(coloursIn(img, { x: 0, y: 0 }, win), 'the denied window filled').toBe(1);
    expect(
      coloursIn(img, { x: 0, y: 0 }, windowOf(allowed.pid)),
      'the allowed one not',
    ).toBeGreaterThan(1);
    const region = { x: win.x - 30, y: win.y - 30, w: 200, h: 120 };
    const part = await call('ax_screenshot', { app: allowed.pid, region });
    expect(part.isError, part.text).toBe(false);
    const overlap = { x: win.x, y: win.y, w: 170, h: 90 };
    expect(coloursIn(await decodePng(part.fields.screenshot), region, overlap)).toBe(1);
  });

  it('is never clicked on its title bar, which every capture fills too', async () => {
    const w = x11.listWindows().find((w) => w.mapped && w.pid === denied.pid)!;
    const e = w.frameExtents;
    expect(e, 'the window manager frames it').not.toBeNull();
    expect(e!.top).toBeGreaterThan(2);
    const titleBar = { x: w.x - e!.left + 1, y: w.y - e!.top + 1, w: w.w - 2, h: e!.top - 2 };
    // A double click on a title bar maximizes the window: it would cover the screen.
    const r = await call('ax_click_at', {
      app: allowed.pid,
      ...centre(titleBar),
      click_type: 'double',
      delivery_mode: 'foreground',
    });
    expect(r.isError, r.text).toBe(true);
    expect(r.structured.error_code).toBe('blocked');
    expect(
      coloursIn(x11.captureRegion(titleBar), titleBar, titleBar),
      'its title shows',
    ).toBeGreaterThan(1);
    const full = await call('ax_screenshot', { app: allowed.pid, full_screen: true });
    expect(full.isError, full.text).toBe(false);
    expect(coloursIn(await decodePng(full.fields.screenshot), { x: 0, y: 0 }, titleBar)).toBe(1);
    expect(x11.listWindows().find((v) => v.window === w.window)).toMatchObject({ w: w.w, h: w.h });
  });

  it('is left out of ax_list_apps, which says how many it left out', async () => {
    const r = await call('ax_list_apps', {});
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toContain("1 app left out by this server's deny list");
    expect(r.structured.left_out).toBe(1);
    const pids = (r.structured.apps as Array<{ pid: number }>).map((a) => a.pid);
    expect(pids).toContain(allowed.pid);
    expect(pids).not.toContain(denied.pid);
    const img = await decodePng(r.fields.screenshot);
    expect(coloursIn(img, { x: 0, y: 0 }, windowOf(denied.pid))).toBe(1);
  });

  it('is left out of the apps resource and of completions', async () => {
    const apps = JSON.parse(
      String(
        (
          (await session.client.readResource({ uri: 'axpage://apps' })).contents[0] as {
            text: string;
          }
        ).text,
      ),
    ) as { left_out?: number; apps: Array<{ pid: number }> };
    expect(apps.left_out).toBe(1);
    expect(apps.apps.map((a) => a.pid)).not.toContain(denied.pid);
    results.push({ text: JSON.stringify(apps), structured: {} } as CallResult);
    const complete = async (value: string) =>
      (
        await session.client.complete({
          ref: { type: 'ref/resource', uri: 'axpage://app/{name}/tree' },
          argument: { name: 'name', value },
        })
      ).completion.values;
    expect(await complete('pass')).toEqual([]);
    expect(await complete('Vault')).toEqual([]);
    expect(await complete('Allowed')).toContain('Allowed Ledger');
  });

  it('is no candidate for an app argument, and no error lists it', async () => {
    // Both windows' titles end in "Ledger", no app's name has it: only the allowed app matches.
    const r = await call('ax_list_windows', { app: 'Ledger' });
    expect(r.isError, r.text).toBe(false);
    expect(r.structured.pid).toBe(allowed.pid);
    const none = await call('ax_get_tree', { app: 'no-such-app-xyz' });
    expect(none.isError).toBe(true);
    // Named outright, it is answered as an app that does not run: nothing tells that it does.
    const named = await call('ax_list_windows', { app: 'passphrase.py' });
    const unknown = await call('ax_list_windows', { app: 'no-such-app.py' });
    expect(named.structured.error_code).toBe('app_not_found');
    expect(named.fields.error.replace('passphrase.py', 'X')).toBe(
      unknown.fields.error.replace('no-such-app.py', 'X'),
    );
  });

  it('is filled whole, title bar too, when it has no accessibility (denied by its program)', async () => {
    // xmessage is a plain X app: it never registers with AT-SPI, only its process says what it is.
    const xm = await session.launch(
      '/usr/bin/xmessage',
      ['-geometry', '+60+60', 'DENIED XMESSAGE CONTENT'],
      {
        waitFor: 'none',
      },
    );
    try {
      const w = await pollUntil(
        () =>
          x11
            .listWindows()
            .find((w) => w.mapped && w.wmInstance === 'xmessage' && w.frameExtents) ?? null,
        { timeoutMs: 30_000, what: 'the framed xmessage window' },
      );
      const e = w.frameExtents!;
      // Its whole frame, 1 px in from the edges: title bar, borders and text.
      const frame = {
        x: w.x - e.left + 1,
        y: w.y - e.top + 1,
        w: w.w + e.left + e.right - 2,
        h: w.h + e.top + e.bottom - 2,
      };
      const text = { x: w.x + 1, y: w.y + 1, w: w.w - 2, h: w.h - 2 };
      await pollUntil(() => coloursIn(x11.captureRegion(text), text, text) > 1, {
        timeoutMs: 30_000,
        what: 'xmessage drawing its text',
      });
      expect(coloursIn(x11.captureRegion(frame), frame, frame), 'it shows on X').toBeGreaterThan(1);
      const full = await call('ax_screenshot', { app: allowed.pid, full_screen: true });
      expect(full.isError, full.text).toBe(false);
      expect(coloursIn(await decodePng(full.fields.screenshot), { x: 0, y: 0 }, frame)).toBe(1);
      // The allowed app's own capture, which the xmessage window covers in part.
      const own = await call('ax_screenshot', { app: allowed.pid });
      expect(own.isError, own.text).toBe(false);
      const img = await decodePng(own.fields.screenshot);
      const at = viewportOf(own.fields.file);
      const inside = intersect(frame, { x: at.x, y: at.y, w: img.width, h: img.height });
      expect(inside, 'the capture holds part of it').not.toBeNull();
      expect(coloursIn(img, at, inside!)).toBe(1);
      const listed = await call('ax_list_apps', {});
      expect(coloursIn(await decodePng(listed.fields.screenshot), { x: 0, y: 0 }, frame)).toBe(1);
    } finally {
      await xm.stop();
    }
  });

  it('no listing, summary or file names it or its windows, apart from refusals of it by name', () => {
    const texts = results.map((r) => `${r.text}\n${JSON.stringify(r.structured)}`);
    for (const f of fs.readdirSync(session.artifactDir)) {
      if (f.endsWith('.txt')) texts.push(fs.readFileSync(`${session.artifactDir}/${f}`, 'utf8'));
    }
    for (const text of texts) {
      expect(text).not.toContain(DENIED_TITLE);
    }
    // A refusal of it by name echoes the name it was given, as for any app that does not run.
    const echo = "no running app matches 'passphrase.py' by name";
    for (const r of results.filter((r) => r.structured.error_code !== 'blocked')) {
      expect(r.text.replace(echo, '')).not.toContain('passphrase.py');
      expect(r.text).not.toContain(`pid ${denied.pid}`);
    }
  });
});
