/**
 * FeatherPad's Preferences dialog (Qt 5): a number typed into its window width spin box
 * in the foreground is committed by the field's own focus-out, not by Return, which Qt
 * passes on to the dialog's default button (it closed the dialog). Oracles: pyatspi (the
 * dialog still shown, the spin box's value) and the settings file FeatherPad writes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pollUntil } from '../../src/desktop/procs.js';
import { Session } from '../../src/harness/session.js';
import { allPresent, describeNeeding, program } from './helpers/needs.js';
import { readApp, waitForApp } from './helpers/oracle.js';

const FEATHERPAD = program('featherpad', 'featherpad');

let session: Session;
let home: string;
const started = new Set<number>();

beforeAll(async () => {
  if (!allPresent([FEATHERPAD])) return;
  // A fresh home: FeatherPad's settings file is its alone.
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-fp-home-'));
  session = await Session.start({
    serverEnv: {
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_DATA_HOME: path.join(home, '.local', 'share'),
    },
  });
}, 60_000);

afterAll(async () => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  await session?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

describeNeeding([FEATHERPAD], "FeatherPad's Preferences: the window width typed", () => {
  it('is committed with the dialog still open, and saved', async () => {
    const launched = await session.call('ax_launch_app', { command: ['featherpad', '-s'] });
    expect(launched.isError, launched.text).toBe(false);
    const { app_pid: pid, pid: child } = launched.structured.launched as {
      app_pid: number;
      pid: number;
    };
    started.add(pid).add(child);
    const fg = { app: pid, delivery_mode: 'foreground' };
    for (const query of ['menuitem:Options', 'menuitem:Preferences']) {
      const r = await session.call('ax_click', { ...fg, query });
      expect(r.isError, r.text).toBe(false);
    }
    // The width is editable once the size is not remembered from the last window.
    const remember = await session.call('ax_click', {
      ...fg,
      query: 'checkbox:"Remember window size on closing"',
    });
    expect(remember.isError, remember.text).toBe(false);
    await waitForApp(
      session,
      pid,
      (els) =>
        els.find(
          (e) => e.role === 'spin button' && e.value === 700 && e.states.includes('enabled'),
        ),
      'the width spin box enabled',
    );

    const r = await session.call('ax_type', {
      ...fg,
      query: 'spinbutton:"Window Settings"[1]',
      text: '820',
      clear_first: true,
    });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toMatch(
      /committed with Tab \(Return would press the dialog's default button\): value 700 → 820/,
    );
    expect(r.text).not.toMatch(/closed/);
    await waitForApp(
      session,
      pid,
      (els) => els.find((e) => e.role === 'spin button' && e.value === 820),
      'the width 820',
    );
    const els = await readApp(session, pid);
    expect(
      els.some((e) => e.name === 'Preferences' && e.states.includes('showing')),
      'the Preferences dialog still shown',
    ).toBe(true);

    // Saved: FeatherPad writes its settings when it quits.
    const close = await session.call('ax_click', { ...fg, query: 'button:Close' });
    expect(close.isError, close.text).toBe(false);
    const quit = await session.call('ax_quit_app', { app: pid });
    expect(quit.isError, quit.text).toBe(false);
    const conf = path.join(home, '.config', 'featherpad', 'fp.conf');
    const saved = await pollUntil(
      () => (fs.existsSync(conf) && /\b820\b/.test(fs.readFileSync(conf, 'utf8')) ? true : null),
      { timeoutMs: 15_000, what: `820 in ${conf}` },
    );
    expect(saved).toBe(true);
  }, 120_000);
});
