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
