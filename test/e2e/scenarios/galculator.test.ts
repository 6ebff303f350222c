/**
 * Issue 7 on an app we never tuned to: galculator (GTK3, from Debian), whose keys are GTK
 * toggle buttons. The calculator's own display, read with an independent pyatspi script,
 * and the clipboard, read by another X client (xclip), are the oracles. Popups (galculator's
 * MS menu, a combo box's list in our form fixture) are checked against the window's size.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../../src/desktop/apps.js';
import { Session } from '../../../src/harness/session.js';
import { readApp, readClipboard, waitForApp, type AtspiElement } from '../helpers/oracle.js';

let session: Session;
let calc: LaunchedApp;

beforeAll(async () => {
  session = await Session.start();
  await session.client.listTools();
  calc = await session.launch('galculator', [], {
    // A fresh config: galculator remembers its mode and display between runs.
    env: { HOME: session.artifactDir, XDG_CONFIG_HOME: `${session.artifactDir}/config` },
  });
});

afterAll(async () => {
  await session?.close();
});

/** The calculator's display: its one text element (a GtkTextView-like label area). */
function display(els: AtspiElement[]): string | undefined {
  const text = els.find((e) => e.role === 'text' && e.text !== undefined);
  return text?.text?.trim();
}

async function waitForDisplay(want: string): Promise<void> {
  await waitForApp(
    session,
    calc.pid,
    (els) => (Number(display(els)) === Number(want) ? true : undefined),
    `the display showing ${want}`,
  );
}

/** Presses each key by query and checks every call succeeded. */
async function press(queries: string[]): Promise<void> {
  for (const query of queries) {
    const r = await session.call('ax_click', { app: calc.pid, query });
    expect(r.isError, `${query}: ${r.text}`).toBe(false);
  }
}

describe('galculator: button: finds its toggle-button keys', () => {
  it('7 + 8 = shows 15 on the calculator display', async () => {
    await press(['button:AC', 'button:7', 'button:+', 'button:8', 'button:=']);
    await waitForDisplay('15');
  });

  it('* is the multiply key, not a wildcard: 6 * 7 = shows 42', async () => {
    await press(['button:AC', 'button:6', 'button:*', 'button:7', 'button:=']);
    await waitForDisplay('42');
  });

  it('ctrl+c copies the display: another process reads it from the clipboard', async () => {
    // Plain-text queries (exact names) so that this checks the copy, not the role family.
    await press(['AC', '9', '+', '9', '=']);
    await waitForDisplay('18');
    const r = await session.call('ax_key_press', { app: calc.pid, key: 'c', modifiers: ['ctrl'] });
    expect(r.isError, r.text).toBe(false);
    const deadline = Date.now() + 3000;
    let clip = await readClipboard(session);
    while (clip.trim() !== '18' && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 100));
      clip = await readClipboard(session);
    }
    expect(clip.trim()).toBe('18');
    expect(r.text).not.toContain('ctrl+ctrl');
  });

  it('a key given as "ctrl+c" is rendered once, not "ctrl+ctrl+c"', async () => {
    const r = await session.call('ax_key_press', { app: calc.pid, key: 'ctrl+c' });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toMatch(/ctrl\+c/);
    expect(r.text).not.toContain('ctrl+ctrl');
  });
});

describe('galculator: an ambiguous query is refused', () => {
  it('"M" matches MS, MR and M+ equally: an error listing them, and nothing is pressed', async () => {
    await press(['AC', '5']);
    await waitForDisplay('5');
    const r = await session.call('ax_click', { app: calc.pid, query: 'M' });
    expect(r.isError, r.text).toBe(true);
    for (const label of ['MS', 'MR', 'M+']) expect(r.text).toContain(`"${label}"`);
    // MS would have opened its "save here" popup; M+ would have stored the 5.
    const els = await readApp(session, calc.pid);
    expect(els.filter((e) => e.name === 'save here' && e.states.includes('showing'))).toEqual([]);
    expect(Number(display(els))).toBe(5);
  });
});

describe('popups are captured in context', () => {
  it("MS's popup: the screenshot holds the calculator window, not only the 126x33 menu", async () => {
    const frame = (await readApp(session, calc.pid)).find((e) => e.role === 'frame');
    expect(frame?.extents, 'pyatspi sees the main window').toBeDefined();
    const [, , fw, fh] = frame?.extents ?? [0, 0, 0, 0];
    const r = await session.call('ax_click', { app: calc.pid, query: 'MS' });
    expect(r.isError, r.text).toBe(false);
    await waitForApp(
      session,
      calc.pid,
      (els) => els.find((e) => e.name === 'save here' && e.states.includes('showing')),
      'the MS popup',
    );
    const png = await sharp(r.fields.screenshot).metadata();
    expect(png.width ?? 0).toBeGreaterThanOrEqual(fw);
    expect(png.height ?? 0).toBeGreaterThanOrEqual(fh);
    // Close the popup again.
    await session.call('ax_key_press', { app: calc.pid, key: 'Escape' });
  });

  it("a combo box's list: the screenshot holds the form window, not only the list", async () => {
    const form = await session.launchFixture('form.py');
    const frame = (await readApp(session, form.pid)).find((e) => e.role === 'frame');
    expect(frame?.extents, 'pyatspi sees the form window').toBeDefined();
    const [, , fw, fh] = frame?.extents ?? [0, 0, 0, 0];
    const r = await session.call('ax_click', {
      app: form.pid,
      query: 'combo:Color',
      delivery_mode: 'foreground', // a real click opens GTK's list; this checks its capture
    });
    expect(r.isError, r.text).toBe(false);
    await waitForApp(
      session,
      form.pid,
      (els) => els.find((e) => e.name === 'Green' && e.states.includes('showing')),
      'the open list of colours',
    );
    const png = await sharp(r.fields.screenshot).metadata();
    expect(png.width ?? 0).toBeGreaterThanOrEqual(fw);
    expect(png.height ?? 0).toBeGreaterThanOrEqual(fh);
    await session.call('ax_key_press', { app: form.pid, key: 'Escape' });
    await form.stop();
  });
});
