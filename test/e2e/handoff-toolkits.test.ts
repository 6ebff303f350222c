/**
 * Cross-app handoff to apps of other toolkits: a button in our GTK3 launcher fixture starts
 * a GTK4 app (gtk4-demo) or a Qt 5 app (featherpad) as a separate process, and the click's
 * result hands off to it: `app_switch` names the child's pid (as the fixture reports it),
 * the file has its section with positions, and a ref from that section drives the child.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../../src/harness/session.js';
import { readApp, waitForApp } from './helpers/oracle.js';
import { handOff } from './helpers/handoff.js';

let session: Session;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-handoff-'));

beforeAll(async () => {
  session = await Session.start();
}, 60_000);

afterAll(async () => {
  await session?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The file's app_switch section: its header line and element lines. */

describe('handoff to other toolkits', () => {
  it('to a GTK4 app: its window, with screen positions, in the same result', async () => {
    const { launcher: app, child, section } = await handOff(session, ['gtk4-demo']);
    expect(section[0]).toMatch(/^# app_switch: gtk4-demo/);
    // GTK4 gives window-relative extents: the section's frames are on the screen, inside
    // the child's window, which the AT-SPI tree of the child (read by pyatspi) agrees on.
    const win = /\[AXWindow[^\]]*\] "([^"]*)" e\d+ x:(\d+) y:(\d+) w:(\d+) h:(\d+)/.exec(
      section.join('\n'),
    );
    expect(win, section.join('\n')).toBeTruthy();
    const [wx, wy, ww, wh] = (win as RegExpExecArray).slice(2).map(Number);
    const framed = section.filter((l) => / x:\d+ y:\d+ w:\d+ h:\d+/.test(l));
    expect(framed.length).toBeGreaterThan(5);
    for (const l of framed.slice(0, 40)) {
      const [x, y] = / x:(-?\d+) y:(-?\d+)/.exec(l)!.slice(1).map(Number);
      expect(x, l).toBeGreaterThanOrEqual(wx);
      expect(y, l).toBeGreaterThanOrEqual(wy);
      expect(x, l).toBeLessThanOrEqual(wx + ww);
      expect(y, l).toBeLessThanOrEqual(wy + wh);
    }
    const title = (win as RegExpExecArray)[1];
    const names = (await readApp(session, child)).map((e) => e.name);
    expect(names).toContain(title);
    await app.stop();
  }, 90_000);

  it('to a Qt app: the child is walked and typed into by a ref from the handoff', async () => {
    const file = path.join(dir, 'qt-handoff.txt');
    fs.writeFileSync(file, 'from the launcher\n');
    const { launcher: app, child, section } = await handOff(session, ['featherpad', '-s', file]);
    expect(section[0]).toMatch(/^# app_switch: featherpad/i);
    const editor = section.find((l) => /\[AXTextArea[^\]]*\] "from the launcher/.test(l));
    expect(editor, section.join('\n')).toBeDefined();
    const ref = /\b(e\d+)\b/.exec(editor!)![1];
    const typed = await session.call('ax_type', { ref, text: 'handed ' });
    expect(typed.isError, typed.text).toBe(false);
    await waitForApp(
      session,
      child,
      (els) => els.find((e) => e.text?.includes('handed ')),
      'the typed text in the editor',
    );
    await app.stop();
  }, 90_000);
});
