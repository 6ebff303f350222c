/**
 * A window of one process drawn inside another's (XEmbed: xembed_host.py's GtkSocket holds
 * xembed_plug.py's GtkPlug) is that process's, whatever window it sits in: its password
 * field is in the host's tree (below the socket, on the plug's bus) so every guard sees it,
 * every capture fills it, and with the plug's app denied, the plug takes no pointer event
 * and every capture fills it whole. Oracles: the plug's own log (passed on by the host) and
 * the screen's pixels read by our X client against the PNG the server wrote.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../../src/harness/session.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { Rect } from '../../src/model/element.js';
import { X11 } from '../../src/platform/linux/x11.js';
import { coloursIn, decodePng } from './helpers/pixels.js';

const rectOf = (f: unknown): Rect => {
  const [x, y, w, h] = f as number[];
  return { x, y, w, h };
};
const centre = (r: Rect) => ({ x: Math.round(r.x + r.w / 2), y: Math.round(r.y + r.h / 2) });
const inset = (r: Rect): Rect => ({ x: r.x + 2, y: r.y + 2, w: r.w - 4, h: r.h - 4 });

interface Embedding {
  session: Session;
  host: LaunchedApp;
  x11: X11;
  /** The plug's widgets on screen, as it reported them once shown. */
  rects: Record<string, Rect>;
}

/**
 * The host and its plug on a desktop and server of their own (env: the server's);
 * `plugEnv`: the fixtures' options.
 */
function embedding(
  serverEnv: Record<string, string>,
  password: boolean,
  plugEnv: Record<string, string> = {},
): () => Embedding {
  let e: Embedding | undefined;
  beforeAll(async () => {
    const session = await Session.start({ serverEnv });
    const host = await session.launchFixture('xembed_host.py', [], {
      env: {
        ...(password ? { AXPAGE_FIXTURE_PASSWORD: '1', AXPAGE_FIXTURE_SECRET: SECRET } : {}),
        ...plugEnv,
      },
    });
    const mapped = await host.output!.waitForEvent((ev) => ev.event === 'mapped', {
      timeoutMs: 15_000,
    });
    const rects = Object.fromEntries(
      Object.entries(mapped)
        .filter(([k]) => k !== 'event' && k !== 'from')
        .map(([k, v]) => [k, rectOf(v)]),
    );
    const x11 = X11.open(session.desktop.processEnv().DISPLAY as string, { framebuffer: false });
    e = { session, host, x11, rects };
  }, 60_000);
  afterAll(async () => {
    e?.x11.close();
    await e?.session.close();
  });
  return () => {
    if (!e) throw new Error('the embedding is not started: use it inside a test');
    return e;
  };
}

const SECRET = 'plug-Zq7-secret';

/** Events the plug logged from index `from` on. */
const plugEvents = (e: Embedding, from = 0) =>
  (e.host.output?.events ?? []).slice(from).filter((ev) => ev.from === 'plug');

/**
 * Clicks the plug's button and waits for it: the plug handles its input in order, so
 * anything a refused call had sent it is handled by then.
 */
async function plugBarrier(e: Embedding, from: number): Promise<void> {
  const r = await e.session.call('ax_click', { app: e.host.pid, query: 'Plug button' });
  expect(r.isError, r.text).toBe(false);
  await e.host.output!.waitForEvent((ev) => ev.from === 'plug' && ev.event === 'clicked', {
    from,
    timeoutMs: 15_000,
  });
}

describe('safe mode: a password field in another process plugged into an app', () => {
  const get = embedding({ AXPAGE_MODE: 'safe' }, true);

  it("is in the host's tree as a password field, its text never shown", async () => {
    const e = get();
    const r = await e.session.call('ax_get_tree', { app: e.host.pid });
    expect(r.isError, r.text).toBe(false);
    const tree = fs.readFileSync(r.fields.file, 'utf8');
    expect(tree).toMatch(/Plug button/);
    expect(tree).toMatch(/\(secure\)|secure/);
    expect(tree).toMatch(/Show password/);
    expect(tree).not.toContain(SECRET);
  });

  it('takes no key, no text and no reveal; the plug logs none of them', async () => {
    const e = get();
    const from = e.host.output!.events.length;
    const show = centre(e.rects.show);
    // In the background, a click gives the field the keyboard focus, and nothing else.
    const focus = await e.session.call('ax_click', { app: e.host.pid, query: 'Password' });
    expect(focus.isError, focus.text).toBe(false);
    for (const [tool, args] of [
      ['ax_click', { query: 'Show password' }],
      ['ax_click_at', { ...show, delivery_mode: 'foreground' }],
      ['ax_click_at', { ...centre(e.rects.field), delivery_mode: 'foreground' }],
      ['ax_key_press', { key: 'x' }],
      ['ax_type', { text: 'abc' }],
    ] as const) {
      const r = await e.session.call(tool, { app: e.host.pid, ...args });
      expect(r.isError, `${tool} ${JSON.stringify(args)}: ${r.text}`).toBe(true);
    }
    await plugBarrier(e, from);
    const landed = plugEvents(e, from).filter((ev) => ev.event !== 'clicked');
    expect(landed).toEqual([]);
  });

  it('is filled in a full-screen capture; the rest of the plug is not', async () => {
    const e = get();
    const field = inset(e.rects.field);
    expect(
      coloursIn(e.x11.captureRegion(field), field, field),
      'the screen shows the bullets',
    ).toBeGreaterThan(1);
    const r = await e.session.call('ax_screenshot', { app: e.host.pid, full_screen: true });
    expect(r.isError, r.text).toBe(false);
    const img = await decodePng(r.fields.screenshot);
    expect(coloursIn(img, { x: 0, y: 0 }, field), 'the password field filled').toBe(1);
    const button = inset(e.rects.button);
    expect(coloursIn(img, { x: 0, y: 0 }, button), "the plug's button shown").toBeGreaterThan(1);
  });
});

describe("a denied app's window plugged into an allowed app", () => {
  const get = embedding({ AXPAGE_DENY_APPS: 'xembed_plug.py' }, false);

  it('takes no pointer event at its pixels, through the host', async () => {
    const e = get();
    for (const clickType of ['single', 'double'] as const) {
      const r = await e.session.call('ax_click_at', {
        app: e.host.pid,
        ...centre(e.rects.button),
        click_type: clickType,
        delivery_mode: 'foreground',
      });
      expect(r.isError, r.text).toBe(true);
      expect(r.structured.error_code).toBe('blocked');
    }
    const scroll = await e.session.call('ax_scroll', {
      app: e.host.pid,
      x: centre(e.rects.button).x,
      y: centre(e.rects.button).y,
      direction: 'down',
    });
    expect(scroll.isError, scroll.text).toBe(true);
    // A click on the host's own label still goes.
    const own = await e.session.call('ax_click', {
      app: e.host.pid,
      query: 'Host label',
      delivery_mode: 'foreground',
    });
    expect(own.isError, own.text).toBe(false);
    expect(plugEvents(e).filter((ev) => ev.event === 'clicked')).toEqual([]);
  });

  it('is filled whole in every capture; the host is not', async () => {
    const e = get();
    const plug = e.x11
      .embeddedWindows(
        e.x11
          .listWindows()
          .filter((w) => w.pid === e.host.pid)
          .map((w) => w.window),
      )
      .find((w) => w.mapped);
    expect(plug, "the plug's window inside the host's").toBeDefined();
    const area = inset({ x: plug!.x, y: plug!.y, w: plug!.w, h: plug!.h });
    expect(coloursIn(e.x11.captureRegion(area), area, area)).toBeGreaterThan(1);
    const r = await e.session.call('ax_screenshot', { app: e.host.pid, full_screen: true });
    expect(r.isError, r.text).toBe(false);
    const img = await decodePng(r.fields.screenshot);
    expect(coloursIn(img, { x: 0, y: 0 }, area), 'the plug filled').toBe(1);
    const host = e.x11.listWindows().find((w) => w.mapped && w.pid === e.host.pid)!;
    const above = { x: host.x + 2, y: host.y + 2, w: host.w - 4, h: plug!.y - host.y - 4 };
    expect(coloursIn(img, { x: 0, y: 0 }, above), "the host's own label shown").toBeGreaterThan(1);
    const tree = await e.session.call('ax_get_tree', { app: e.host.pid });
    expect(tree.isError, tree.text).toBe(false);
    expect(fs.readFileSync(tree.fields.file, 'utf8')).not.toMatch(/Plug button|Plug content/);
  });
});

/**
 * Tabs from the host's entry into the plug (the host's own focus, given in the background,
 * lets the Tab go), then sends keys that must not reach the plug; the plug logs none.
 */
async function keysIntoPlug(e: Embedding, from: number, denied = false): Promise<void> {
  const focus = await e.session.call('ax_click', { app: e.host.pid, query: 'Host entry' });
  expect(focus.isError, focus.text).toBe(false);
  const tab = await e.session.call('ax_key_press', { app: e.host.pid, key: 'Tab' });
  expect(tab.isError, tab.text).toBe(false);
  for (const [tool, args] of [
    ['ax_key_press', { key: 'z' }],
    ['ax_key_press', { key: 'space' }],
    ['ax_type', { text: 'abc', delivery_mode: 'foreground' }],
  ] as const) {
    const r = await e.session.call(tool, { app: e.host.pid, ...args });
    expect(r.isError, `${tool} ${JSON.stringify(args)}: ${r.text}`).toBe(true);
    expect(r.fields.error).toMatch(
      /the keyboard focus may be inside a window that another process/,
    );
    // No answer names a denied app, or says it is one.
    if (denied) expect(r.fields.error).not.toMatch(/pid \d+|polic/);
  }
  // The host's entry takes text once it has the focus again: the plug had none of it.
  const back = await e.session.call('ax_click', { app: e.host.pid, query: 'Host entry' });
  expect(back.isError, back.text).toBe(false);
  const typed = await e.session.call('ax_key_press', { app: e.host.pid, key: 'q' });
  expect(typed.isError, typed.text).toBe(false);
  await e.host.output!.waitForEvent((ev) => ev.widget === 'host_entry' && ev.event === 'changed', {
    from,
    timeoutMs: 15_000,
  });
  expect(plugEvents(e, from).filter((ev) => ev.event !== 'mapped')).toEqual([]);
}

describe("a denied app's plug takes no key through its host", () => {
  const get = embedding({ AXPAGE_DENY_APPS: 'xembed_plug.py' }, false);

  it('once a Tab took the focus into it', async () => {
    const e = get();
    await keysIntoPlug(e, e.host.output!.events.length, true);
  });
});

describe('safe mode: a plug without accessibility holding a password field', () => {
  const get = embedding({ AXPAGE_MODE: 'safe' }, true, { AXPAGE_FIXTURE_PLUG_NO_A11Y: '1' });

  it('is filled whole in every capture', async () => {
    const e = get();
    const r = await e.session.call('ax_screenshot', { app: e.host.pid, full_screen: true });
    expect(r.isError, r.text).toBe(false);
    const img = await decodePng(r.fields.screenshot);
    for (const part of ['field', 'show', 'button']) {
      expect(coloursIn(img, { x: 0, y: 0 }, inset(e.rects[part])), part).toBe(1);
    }
  });

  it('takes no pointer press and no key', async () => {
    const e = get();
    const from = e.host.output!.events.length;
    for (const part of ['show', 'field']) {
      const r = await e.session.call('ax_click_at', {
        app: e.host.pid,
        ...centre(e.rects[part]),
        delivery_mode: 'foreground',
      });
      expect(r.isError, r.text).toBe(true);
      expect(r.fields.error).toMatch(
        /draws inside this app's window, whose controls this server does not read/,
      );
    }
    await keysIntoPlug(e, from);
  });
});

describe('a window no window manager manages (a popup) of another app', () => {
  const popupApp = (serverEnv: Record<string, string>) => {
    let session: Session | undefined;
    let popup: LaunchedApp | undefined;
    let other: LaunchedApp | undefined;
    let x11: X11 | undefined;
    beforeAll(async () => {
      session = await Session.start({ serverEnv });
      other = await session.launchFixture('form.py', []);
      popup = await session.launchFixture('popup_secret.py', [], {
        env: { AXPAGE_FIXTURE_SECRET: SECRET },
      });
      x11 = X11.open(session.desktop.processEnv().DISPLAY as string, { framebuffer: false });
    }, 60_000);
    afterAll(async () => {
      x11?.close();
      await session?.close();
    });
    return () => {
      const ready = popup!.output!.events.find((ev) => ev.event === 'ready')!;
      return {
        session: session!,
        popup: popup!,
        other: other!,
        x11: x11!,
        field: rectOf(ready.field),
        show: rectOf(ready.show),
      };
    };
  };

  describe('safe mode', () => {
    const get = popupApp({ AXPAGE_MODE: 'safe' });

    it('has its password field filled in captures made through the other app', async () => {
      const { session, other, x11, field } = get();
      const f = inset(field);
      expect(coloursIn(x11.captureRegion(f), f, f), 'the screen shows bullets').toBeGreaterThan(1);
      const full = await session.call('ax_screenshot', { app: other.pid, full_screen: true });
      expect(full.isError, full.text).toBe(false);
      expect(coloursIn(await decodePng(full.fields.screenshot), { x: 0, y: 0 }, f)).toBe(1);
      const region = { x: field.x - 20, y: field.y - 20, w: field.w + 40, h: field.h + 40 };
      const part = await session.call('ax_screenshot', { app: other.pid, region });
      expect(part.isError, part.text).toBe(false);
      expect(coloursIn(await decodePng(part.fields.screenshot), region, f)).toBe(1);
    });

    it('takes no press through the other app; named itself, its reveal is refused as ever', async () => {
      const { session, popup, other, show } = get();
      const from = popup.output!.events.length;
      const through = await session.call('ax_click_at', {
        app: other.pid,
        ...centre(show),
        delivery_mode: 'foreground',
      });
      expect(through.isError, through.text).toBe(true);
      expect(through.fields.error).toMatch(/is on a window of another app \(pid \d+\)/);
      const own = await session.call('ax_click_at', {
        app: popup.pid,
        ...centre(show),
        delivery_mode: 'foreground',
      });
      expect(own.isError, own.text).toBe(true);
      expect(own.text).toMatch(/would show a password field's text in plain view/);
      // The app handles its input in order: a typed character after the refusals lands
      // (ax_set_value would not reach a password field in safe mode: typed into the form).
      const typed = await session.call('ax_type', { app: other.pid, text: 'x' });
      expect(typed.isError, typed.text).toBe(false);
      expect(popup.output!.events.slice(from).filter((ev) => ev.event === 'toggled')).toEqual([]);
    });
  });

  describe('denied', () => {
    const get = popupApp({ AXPAGE_DENY_APPS: 'popup_secret.py' });

    it('is filled whole and takes no pointer event through the other app', async () => {
      const { session, popup, other, x11, show } = get();
      const win = x11.popupWindows().find((w) => w.pid === popup.pid);
      expect(win, 'the popup, unmanaged').toBeDefined();
      const area = inset({ x: win!.x, y: win!.y, w: win!.w, h: win!.h });
      const full = await session.call('ax_screenshot', { app: other.pid, full_screen: true });
      expect(full.isError, full.text).toBe(false);
      expect(coloursIn(await decodePng(full.fields.screenshot), { x: 0, y: 0 }, area)).toBe(1);
      const from = popup.output!.events.length;
      const r = await session.call('ax_click_at', {
        app: other.pid,
        ...centre(show),
        delivery_mode: 'foreground',
      });
      expect(r.isError, r.text).toBe(true);
      expect(r.structured.error_code).toBe('blocked');
      expect(popup.output!.events.slice(from)).toEqual([]);
    });
  });
});
