/**
 * axpage on a headless sway (Wayland) session, end to end: `axpage serve` runs inside the
 * session and a real MCP client drives the GTK3 form fixture, running natively on Wayland.
 * The oracles are outside the code under test: the fixture's own event log, sway's tree as
 * swaymsg prints it, the screenshot's pixels decoded by sharp, wl-paste and wl-copy.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';

import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { SwaySession } from '../../src/desktop/sway.js';
import { fixtureApp, Session, type CallResult } from '../../src/harness/session.js';
import type { Rect } from '../../src/model/element.js';
import type { RawImage } from '../../src/platform/desktop.js';
import { SwaySession as SwayDisplay } from '../../src/platform/linux/wayland/session.js';
import { pollUntil } from '../../src/model/timeout.js';
import { describeNeeding, program, pythonModule } from './helpers/needs.js';
import { SWAY_SESSION_NEEDS } from './helpers/sway-needs.js';
import { coloursIn, decodePng } from './helpers/pixels.js';

interface SwayNode {
  pid?: number;
  rect: { x: number; y: number; width: number; height: number };
  window_rect?: { x: number; y: number; width: number; height: number };
  focused?: boolean;
  nodes?: SwayNode[];
  floating_nodes?: SwayNode[];
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.floor(s.length / 2)]);
};

/** The share of pixels of screen rect `r` in a full-screen RGB(A) image that are pure white. */
function whiteShare(img: { width: number; channels: number; data: Buffer }, r: Rect): number {
  let white = 0;
  for (let y = r.y; y < r.y + r.h; y++) {
    for (let x = r.x; x < r.x + r.w; x++) {
      const at = (y * img.width + x) * img.channels;
      if (img.data[at] === 255 && img.data[at + 1] === 255 && img.data[at + 2] === 255) white++;
    }
  }
  return white / (r.w * r.h);
}

async function decodePngBuffer(png: Buffer): Promise<RawImage> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels as 3 | 4, data };
}

const inset = (r: Rect, by: number): Rect => ({
  x: r.x + by,
  y: r.y + by,
  w: r.w - 2 * by,
  h: r.h - 2 * by,
});

describeNeeding(
  [
    ...SWAY_SESSION_NEEDS,
    program('wl-copy', 'wl-clipboard'),
    program('wl-paste', 'wl-clipboard'),
    pythonModule('gi', 'python3-gi'),
  ],
  'axpage serve on a headless sway session',
  () => {
    let session: Session<SwaySession>;
    let form: LaunchedApp;

    const events = (): Array<Record<string, unknown>> => form.output?.events ?? [];
    const waitFor = (pred: (e: Record<string, unknown>) => boolean, from: number) =>
      form.output!.waitForEvent(pred, { from, timeoutMs: 15_000 });
    const call = (tool: string, args: Record<string, unknown>): Promise<CallResult> =>
      session.call(tool, { app: form.pid, ...args });
    /** The form's window as swaymsg prints sway's tree: content rect and focus. */
    const swayWindowNow = (): { content: Rect; focused: boolean } | undefined => {
      const tree = JSON.parse(
        execFileSync('swaymsg', ['-t', 'get_tree', '-r'], {
          env: session.desktop.processEnv(),
          encoding: 'utf8',
        }),
      ) as SwayNode;
      const find = (n: SwayNode): SwayNode | undefined =>
        n.pid === form.pid
          ? n
          : [...(n.nodes ?? []), ...(n.floating_nodes ?? [])].map(find).find(Boolean);
      const n = find(tree);
      if (!n?.window_rect) return undefined;
      return {
        content: {
          x: n.rect.x + n.window_rect.x,
          y: n.rect.y + n.window_rect.y,
          w: n.window_rect.width,
          h: n.window_rect.height,
        },
        focused: n.focused === true,
      };
    };
    const swayWindow = (): { content: Rect; focused: boolean } => {
      const w = swayWindowNow();
      if (!w) throw new Error(`no window of pid ${form.pid} in sway’s tree`);
      return w;
    };
    const frameOf = async (query: string): Promise<Rect> => {
      const r = await call('ax_find', { query });
      expect(r.isError, r.text).toBe(false);
      const { position, size } = r.structured as { position: number[]; size: number[] };
      return { x: position[0], y: position[1], w: size[0], h: size[1] };
    };

    beforeAll(async () => {
      session = await Session.startSway();
      form = await session.launchFixture('form.py');
      // The form's first layout settles a moment after it maps: wait for sway to agree.
      await pollUntil(() => ((swayWindowNow()?.content.w ?? 0) > 100 ? true : null), {
        timeoutMs: 10_000,
        what: 'the form laid out in sway',
      });
    }, 90_000);

    afterAll(async () => {
      await session?.close();
    });

    it('reports the sway session as accessible, with the compositor and its output', async () => {
      const r = await session.call('ax_is_accessible', {});
      expect(r.isError, r.text).toBe(false);
      expect(r.structured.details).toMatchObject({
        registry: 'answering',
        display: session.desktop.waylandDisplay,
        compositor: expect.stringMatching(/^sway 1\.\d+/) as unknown,
        outputs: 'HEADLESS-1 1280x800+0+0',
      });
    });

    it('observes the form: a tree file, a summary, frames inside its window on screen', async () => {
      const r = await call('ax_get_tree', {});
      expect(r.isError, r.text).toBe(false);
      expect(r.fields.summary).toMatch(/^Walked \d+ elements/);
      const tree = fs.readFileSync(r.fields.file, 'utf8');
      expect(tree).toMatch(/\[AXButton \(push button\)\] "Submit" e\d+/);
      expect(r.fields.window).toBe('"Fixture Form"');
      // Window-relative on Wayland: placed by sway's content origin, so inside the window.
      const submit = await frameOf('button:Submit');
      const { content } = swayWindow();
      expect(submit.x).toBeGreaterThan(content.x);
      expect(submit.y).toBeGreaterThan(content.y);
      expect(submit.x + submit.w).toBeLessThanOrEqual(content.x + content.w);
      expect(submit.y + submit.h).toBeLessThanOrEqual(content.y + content.h);
    });

    it('clicks a button by query with real input, and the fixture logs the click', async () => {
      const times: number[] = [];
      for (let i = 0; i < 3; i++) {
        const from = events().length;
        const r = await call('ax_click', { query: 'button:Submit', delivery_mode: 'foreground' });
        expect(r.isError, r.text).toBe(false);
        expect(r.text).toMatch(/route: wlr-virtual-input delivery: foreground/);
        await waitFor((e) => e.event === 'clicked' && e.widget === 'submit', from);
        times.push(r.ms);
      }
      console.log(`ax_click foreground on sway: ${times.map(Math.round).join(', ')} ms`);
      expect(swayWindow().focused).toBe(true);
    });

    it('types text into an entry, and the fixture reports the text', async () => {
      const from = events().length;
      const r = await call('ax_type', {
        query: 'text:Name',
        text: 'Hello, sway!',
        delivery_mode: 'foreground',
      });
      expect(r.isError, r.text).toBe(false);
      expect(r.text).toMatch(/route: wlr-virtual-input/);
      await waitFor((e) => e.event === 'changed' && e.value === 'Hello, sway!', from);
    });

    it('presses keys by name, with modifiers, whatever the host layout', async () => {
      let from = events().length;
      let r = await call('ax_key_press', { query: 'text:Name', key: 'BackSpace' });
      expect(r.isError, r.text).toBe(false);
      await waitFor((e) => e.event === 'changed' && e.value === 'Hello, sway', from);
      // ctrl+a selects all; the next character replaces it.
      from = events().length;
      r = await call('ax_key_press', { query: 'text:Name', key: 'ctrl+a' });
      expect(r.isError, r.text).toBe(false);
      r = await call('ax_key_press', { query: 'text:Name', key: 'Z' });
      expect(r.isError, r.text).toBe(false);
      await waitFor((e) => e.event === 'changed' && e.value === 'Z', from);
    });

    it('types characters the us keymap lacks, on keys the keymap is extended with', async () => {
      const from = events().length;
      const text = 'café ß € 日本';
      const r = await call('ax_type', { query: 'text:Email', text, delivery_mode: 'foreground' });
      expect(r.isError, r.text).toBe(false);
      await waitFor((e) => e.event === 'changed' && e.widget === 'email' && e.value === text, from);
      // Keys of the us keymap still type after the keymap changed.
      const next = events().length;
      const again = await call('ax_type', {
        query: 'text:Email',
        text: '!',
        delivery_mode: 'foreground',
      });
      expect(again.isError, again.text).toBe(false);
      await waitFor((e) => e.widget === 'email' && e.value === `${text}!`, next);
    });

    it('takes a screenshot whose pixels are where the frames say', async () => {
      const r = await call('ax_screenshot', { full_screen: true });
      expect(r.isError, r.text).toBe(false);
      const img = await decodePng(r.fields.screenshot);
      expect([img.width, img.height]).toEqual([1280, 800]);
      // The Email entry's inside is its white field (a caret may blink in a focused one).
      const email = await frameOf('text:Email');
      expect(whiteShare(img, inset(email, 4))).toBeGreaterThan(0.9);
      // Shifted by the title bar, as a frame placed by the window's outer corner would be,
      // the same box is not all white: the check can fail.
      const { content } = swayWindow();
      expect(content.y).toBeGreaterThan(0);
      expect(whiteShare(img, inset({ ...email, y: email.y - content.y }, 4))).toBeLessThan(0.9);
      // The password field is filled with one colour where grim shows its bullets.
      const password = inset(await frameOf('text:Password'), 4);
      const raw = await decodePngBuffer(
        execFileSync(
          'grim',
          ['-t', 'png', '-g', `${password.x},${password.y} ${password.w}x${password.h}`, '-'],
          { env: session.desktop.processEnv() },
        ),
      );
      expect(coloursIn(raw, password, password)).toBeGreaterThan(1);
      expect(coloursIn(img, { x: 0, y: 0 }, password)).toBe(1);
    });

    it('writes and reads the clipboard, as wl-paste and wl-copy see it', async () => {
      const w = await session.call('ax_clipboard_write', { text: 'from axpage on sway' });
      expect(w.isError, w.text).toBe(false);
      const env = session.desktop.processEnv();
      expect(execFileSync('wl-paste', ['--no-newline'], { env, encoding: 'utf8' })).toBe(
        'from axpage on sway',
      );
      const copy = spawn('wl-copy', ['--foreground'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
      try {
        copy.stdin.end('from wl-copy');
        await pollUntil(
          async () => {
            const r = await session.call('ax_clipboard_read', {});
            return r.text.includes('from wl-copy') ? r : null;
          },
          { timeoutMs: 10_000, what: 'axpage reading what wl-copy offers' },
        );
      } finally {
        copy.kill();
      }
    });

    it('measures a real click’s round trip to the fixture', async () => {
      const submit = await frameOf('button:Submit');
      const ms: number[] = [];
      for (let i = 0; i < 5; i++) {
        const from = events().length;
        const t0 = performance.now();
        const r = await call('ax_click_at', {
          x: submit.x + submit.w / 2,
          y: submit.y + submit.h / 2,
          delivery_mode: 'foreground',
        });
        expect(r.isError, r.text).toBe(false);
        await waitFor((e) => e.event === 'clicked', from);
        ms.push(performance.now() - t0);
      }
      console.log(`ax_click_at foreground to the fixture's log: median ${median(ms)} ms (5)`);
    });

    it('measures the session’s own input, capture and window listing', async () => {
      const display = new SwayDisplay(session.desktop.processEnv());
      try {
        const submit = await frameOf('button:Submit');
        const click: number[] = [];
        for (let i = 0; i < 10; i++) {
          const from = events().length;
          const t0 = performance.now();
          await display.click(submit.x + submit.w / 2, submit.y + submit.h / 2, 'left', 1);
          await waitFor((e) => e.event === 'clicked', from);
          click.push(performance.now() - t0);
        }
        const timed = async (n: number, op: () => Promise<unknown>): Promise<number> => {
          const ms: number[] = [];
          for (let i = 0; i < n; i++) {
            const t0 = performance.now();
            await op();
            ms.push(performance.now() - t0);
          }
          return median(ms);
        };
        const shot = await timed(10, () => display.capture());
        const region = await timed(10, () => display.capture(submit));
        const windows = await timed(20, () => display.windowStack());
        console.log(
          `sway session: click to the fixture's log median ${median(click)} ms (10; the first ` +
            `${Math.round(click[0])} ms, with the helper starting), full-screen capture ${shot} ms, ` +
            `Submit's region ${region} ms (10), windowStack ${windows} ms (20)`,
        );
      } finally {
        display.close();
      }
    });

    it('launches an app onto the sway session with ax_launch_app, and quits it', async () => {
      const r = await session.call('ax_launch_app', {
        command: ['/usr/bin/python3', fixtureApp('states.py')],
      });
      expect(r.isError, r.text).toBe(false);
      const pid = (r.structured.launched as { app_pid: number }).app_pid;
      // Its window is sway's (native Wayland), not an X11 one: swaymsg lists it.
      await pollUntil(
        () =>
          execFileSync('swaymsg', ['-t', 'get_tree', '-r'], {
            env: session.desktop.processEnv(),
            encoding: 'utf8',
          }).includes(`"pid": ${pid},`)
            ? true
            : null,
        { timeoutMs: 15_000, what: 'the launched app’s window in sway’s tree' },
      );
      const quit = await session.call('ax_quit_app', { app: pid });
      expect(quit.isError, quit.text).toBe(false);
      expect(quit.fields.summary).toMatch(/^The app exited \(states\.py, pid \d+\)/);
    });

    it('quits the app by closing its window as a user would', async () => {
      const r = await call('ax_quit_app', {});
      expect(r.isError, r.text).toBe(false);
      await expect(form.exited).resolves.toBe(0);
    });
  },
);
