/**
 * Typed text reaches an app whole even where the app takes each key as a button's click
 * that lasts a moment and swallows a press of a button still down (KCalc, and the keypad
 * fixture that mimics it): keys are sent as the app takes them, not in one burst. The
 * oracle is what the app itself shows: the fixture's log of its display
 * (test/fixtures/apps/qt_keypad.py), and KCalc's display read with pyatspi.
 */
import { describe, expect, it } from 'vitest';
import { Session } from '../../src/harness/session.js';
import { fixtureRun, type FixtureRun } from './helpers/fixture-run.js';
import { itNeeding, program } from './helpers/needs.js';
import { readApp } from './helpers/oracle.js';

const TEXT = '1001+2200';

/** The display after the last key the app took, as the fixture logged it. */
function lastShown(run: FixtureRun): unknown {
  return run
    .events()
    .filter((e) => e.event === 'display')
    .at(-1)?.value;
}

describe('typing into a keypad that swallows a repeated press', () => {
  const run = fixtureRun('qt_keypad.py', { perTest: true });

  it('every character reaches the app, repeats included, and the summary confirms it', async () => {
    const r = await run.call('ax_type', { text: TEXT, delivery_mode: 'foreground' });
    expect(r.isError, r.text).toBe(false);
    expect(lastShown(run)).toBe(TEXT);
    expect(r.text).toMatch(/effect: confirmed/);
  });
});

describe('typing into a keypad that announces nothing', () => {
  const run = fixtureRun('qt_keypad.py', {
    perTest: true,
    appEnv: { AXPAGE_FIXTURE_SILENT: '1' },
  });

  it('every character reaches the app all the same', async () => {
    const r = await run.call('ax_type', { text: TEXT, delivery_mode: 'foreground' });
    expect(r.isError, r.text).toBe(false);
    expect(lastShown(run)).toBe(TEXT);
  });
});

describe('typing into KCalc', () => {
  itNeeding(
    [program('kcalc', 'kcalc')],
    'digits typed in a row all reach its display, and the summary confirms them',
    async () => {
      const session = await Session.start();
      try {
        const app = await session.launch('kcalc', [], { timeoutMs: 60_000 });
        const r = await session.call('ax_type', {
          app: app.pid,
          text: '1001',
          delivery_mode: 'foreground',
        });
        expect(r.isError, r.text).toBe(false);
        const texts = (await readApp(session, app.pid)).map((e) => e.text ?? e.name);
        expect(texts, JSON.stringify(texts)).toContain('1001');
        expect(r.text).toMatch(/effect: confirmed/);
        // An operator shows in KCalc's display as the number it ends: not the text typed.
        const op = await session.call('ax_type', {
          app: app.pid,
          text: '+22',
          delivery_mode: 'foreground',
        });
        expect(op.isError, op.text).toBe(false);
        expect((await readApp(session, app.pid)).map((e) => e.text ?? e.name)).toContain('22');
        expect(op.text).toMatch(/the app shows .*'22'.*, not the text typed/);
        expect(op.text).not.toMatch(/effect: confirmed/);
      } finally {
        await session.close();
      }
    },
    120_000,
  );
});
