/**
 * The e2e oracles answer or throw: a fixture whose stdout is not ours has no events to
 * read (not "no events"), and an xclip that cannot reach a display has not read an empty
 * clipboard.
 */
import { describe, expect, it } from 'vitest';
import type { AppOutput, LaunchedApp } from '../../src/desktop/apps.js';
import type { Session } from '../../src/harness/session.js';
import { eventsOf, mark, readClipboard } from '../e2e/helpers/oracle.js';

function app(output?: Partial<AppOutput>): LaunchedApp {
  return { pid: 4242, name: 'form.py', output } as unknown as LaunchedApp;
}

describe('fixture events', () => {
  it('reads the events from a mark on', () => {
    const events = [{ event: 'ready' }, { event: 'clicked', widget: 'ok' }];
    const a = app({ events });
    expect(mark(a)).toBe(2);
    expect(eventsOf(a, 1)).toEqual([{ event: 'clicked', widget: 'ok' }]);
    expect(eventsOf(app({ events: [] }))).toEqual([]);
  });

  it('throws, naming the app, when its output is not piped to the test', () => {
    expect(() => eventsOf(app())).toThrow(/pid 4242 \(form.py\) has no output stream/);
    expect(() => mark(app())).toThrow(/launch it with stdio: 'pipe'/);
  });
});

describe('the clipboard read by xclip', () => {
  it('throws when xclip cannot reach the display, rather than answering empty', async () => {
    const nowhere = {
      desktop: { processEnv: () => ({ PATH: process.env.PATH ?? '/usr/bin', DISPLAY: ':1999' }) },
    } as unknown as Session;
    await expect(readClipboard(nowhere)).rejects.toThrow(/xclip -o could not read the clipboard/);
  });
});
