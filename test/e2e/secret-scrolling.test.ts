/**
 * A revealed password field that moves inside its window while the screen is read (its
 * area scrolls every 10 ms), or is hidden and shown again every 15 ms, is filled wherever
 * it was: the fields located last are read again right before the pixels, and one found
 * elsewhere after them, or gone or come since, has its window filled whole for a while.
 * Oracle: the fixture draws the field's text pure red; no capture may hold a red pixel once
 * it is revealed.
 */
import { describe, expect, it } from 'vitest';
import { fixtureRun } from './helpers/fixture-run.js';
import { decodePng } from './helpers/pixels.js';
import { X11 } from '../../src/platform/linux/x11.js';

describe.each(['scroll', 'flicker'])('a revealed field that %ss', (motion) => {
  const run = fixtureRun('scrolling_secret.py', {
    appEnv: { AXPAGE_FIXTURE_SECRET: 'Scroll-Qz7-secret', AXPAGE_FIXTURE_MOTION: motion },
  });

  it('no capture shows it, in 40 taken meanwhile', { timeout: 240_000 }, async () => {
    const tree = await run.call('ax_get_tree', {});
    expect(tree.isError, tree.text).toBe(false);
    const reveal = await run.call('ax_click', { query: 'Show password' });
    expect(reveal.isError, reveal.text).toBe(false);
    await run.waitFor((e) => e.event === 'toggled' && e.active === true);
    const leaks: string[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await run.call('ax_screenshot', i % 2 === 0 ? { full_screen: true } : {});
      expect(r.isError, r.text).toBe(false);
      const img = await decodePng(r.fields.screenshot);
      let red = 0;
      for (let at = 0; at < img.data.length; at += img.channels) {
        if (img.data[at] > 180 && img.data[at + 1] < 80 && img.data[at + 2] < 80) red++;
      }
      if (red > 0) leaks.push(`${r.fields.screenshot}: ${red} red pixels`);
    }
    expect(leaks).toEqual([]);
  });
});

/**
 * The same field scrolling behind another app's window: its window is filled only where it
 * shows. The window in front (a passphrase dialog) is captured as the screen shows it, its
 * own password field filled, and the summary says the other window was filled.
 */
describe('a revealed field that scrolls behind another window', () => {
  const run = fixtureRun('scrolling_secret.py', {
    appEnv: { AXPAGE_FIXTURE_SECRET: 'Scroll-Qz7-secret', AXPAGE_FIXTURE_MOTION: 'scroll' },
  });

  it('fills its window where it shows, not the window in front', { timeout: 240_000 }, async () => {
    await run.call('ax_get_tree', {});
    // Revealed without raising its window (an accessibility action, not a click).
    const reveal = await run.call('ax_click', { query: 'Show password' });
    expect(reveal.isError, reveal.text).toBe(false);
    await run.waitFor((e) => e.event === 'toggled' && e.active === true);
    const dialog = await run.session.launchFixture('passphrase.py', [], {
      env: {
        AXPAGE_FIXTURE_SECRET: 'Front-dialog-Wv8',
        AXPAGE_FIXTURE_X: '260',
        AXPAGE_FIXTURE_Y: '160',
      },
    });
    const ready = dialog.output!.events.find((e) => e.event === 'ready')!;
    const [x, y, w, h] = ready.frame as number[];
    const [fx, fy, fw, fh] = ready.field as number[];
    const frame = { x, y, w, h };
    const x11 = X11.open(run.session.desktop.processEnv().DISPLAY as string, {
      framebuffer: false,
    });
    try {
      const screen = x11.captureRegion(frame);
      const notes: string[] = [];
      for (let i = 0; i < 10; i++) {
        const r = await run.call('ax_screenshot', { region: frame });
        expect(r.isError, r.text).toBe(false);
        notes.push(r.text);
        const img = await decodePng(r.fields.screenshot);
        let same = 0;
        let all = 0;
        for (let py = 0; py < h; py++) {
          for (let px = 0; px < w; px++) {
            const sx = x + px;
            const sy = y + py;
            if (sx >= fx && sx < fx + fw && sy >= fy && sy < fy + fh) continue;
            const a = (py * img.width + px) * img.channels;
            const b = (py * screen.width + px) * screen.channels;
            all++;
            if ([0, 1, 2].every((c) => img.data[a + c] === screen.data[b + c])) same++;
          }
        }
        // The scrolling field's own box, filled wherever it was seen (a band its height),
        // may lie across the dialog: a tenth of it. Its whole window would be half of it.
        expect(
          same / all,
          `${r.fields.screenshot} shows the dialog as the screen does (${r.text})`,
        ).toBeGreaterThan(0.8);
      }
      // The scrolling field was seen moving: its window was filled where it shows, and said so.
      const full = await run.call('ax_screenshot', { full_screen: true });
      expect(full.text).toMatch(/windows of pid \d+ filled whole where they show/);
    } finally {
      x11.close();
      await dialog.stop();
    }
  });
});
