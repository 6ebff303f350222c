/**
 * GTK 3 draws an overlay's widgets over the widget under them in one window, and its
 * accessibility answers a point one level down at a time (the first child listed there):
 * a foreground click on the covered widget is refused by the app's own hit test, asked
 * down to the widget drawn on top. An icon button whose only label is its description is
 * found, clicked and asserted by that label, as its tree line shows it. The oracle is the
 * fixture's own log (test/fixtures/apps/overlay.py).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixtureRun } from './helpers/fixture-run.js';

const run = fixtureRun('overlay.py');
const { events, call, waitFor } = run;

const clicks = (from = 0): unknown[] =>
  events()
    .slice(from)
    .filter((e) => e.event === 'clicked')
    .map((e) => e.widget);

describe('an icon button named only by its description', () => {
  it('is found, asserted and clicked by that name, as its tree file line shows it', async () => {
    const found = await call('ax_find', { query: 'button:"Primary menu"' });
    expect(found.isError, found.text).toBe(false);
    const ref = /\b(e\d+)\b/.exec(found.text)?.[1];
    expect(ref, found.text).toBeDefined();
    const line = fs
      .readFileSync(found.fields.file, 'utf8')
      .split('\n')
      .find((l) => l.includes(` ${ref} `) || l.endsWith(` ${ref}`));
    expect(line).toMatch(/\[AXButton[^\]]*\] "Primary menu"/);

    const held = await call('ax_assert', {
      query: 'button:"Primary menu"',
      assertions: { title: 'Primary menu' },
    });
    expect(held.isError, held.text).toBe(false);
    expect(held.structured.passed, held.text).toBe(true);

    const from = events().length;
    const r = await call('ax_click', { query: 'button:"Primary menu"' });
    expect(r.isError, r.text).toBe(false);
    await waitFor((e) => e.event === 'clicked' && e.widget === 'menu', from);
    expect(clicks(from)).toEqual(['menu']);
  });
});

describe('a button with another widget of its window drawn over its middle', () => {
  it('a foreground click on it is refused, naming what is drawn there; nothing is clicked', async () => {
    const from = events().length;
    const r = await call('ax_click', {
      query: 'button:"Under button"',
      delivery_mode: 'foreground',
    });
    expect(r.isError, r.text).toBe(true);
    expect(r.text).toMatch(/another element is drawn there \(\[AXButton\] "Badge"/);
    // Input sent before this click would be logged before its event.
    const barrier = await call('ax_click', { query: 'button:"Primary menu"' });
    expect(barrier.isError, barrier.text).toBe(false);
    await waitFor((e) => e.event === 'clicked' && e.widget === 'menu', from);
    expect(clicks(from)).toEqual(['menu']);
  });

  it('the widget drawn on top takes a foreground click', async () => {
    const from = events().length;
    const r = await call('ax_click', { query: 'button:Badge', delivery_mode: 'foreground' });
    expect(r.isError, r.text).toBe(false);
    await waitFor((e) => e.event === 'clicked' && e.widget === 'badge', from);
    expect(clicks(from)).toEqual(['badge']);
  });
});
