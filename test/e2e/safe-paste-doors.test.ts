/**
 * Safe mode: however an action ends up pasting (a button or menu item under another name, a
 * tool button that is only an icon, a focusable Paste button reached by Tab, an accelerator
 * of the app's own), nothing reaches a focused password field: while an action goes to an
 * app that shows a password field, the selections offer nothing. The fixture says what each
 * door did and how long each field's text is; the agent reads its text back from the
 * clipboard, and in the same form without a password field a paste still works.
 */
import { describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { Session } from '../../src/harness/session.js';
import { pollUntil } from '../../src/desktop/procs.js';
import { sessionPerSuite } from './helpers/suite-session.js';

const TEXT = 'AgentText123';

const events = (app: LaunchedApp, from = 0) => (app.output?.events ?? []).slice(from);

/** The length the fixture last reported for the field's text. */
function length(app: LaunchedApp, widget: string): number {
  const last = events(app)
    .filter((e) => e.event === 'changed' && e.widget === widget)
    .at(-1);
  return (last?.length as number | undefined) ?? 0;
}

async function ok(session: Session, tool: string, args: Record<string, unknown>) {
  const r = await session.call(tool, args);
  expect(r.isError, `${tool} ${JSON.stringify(args)}: ${r.text}`).toBe(false);
  return r;
}

/** A call that may be refused: whether it was. */
async function refused(session: Session, tool: string, args: Record<string, unknown>) {
  const r = await session.call(tool, args);
  if (r.isError) expect(r.text).toMatch(/safe mode/);
  return r.isError === true;
}

/**
 * Each door: what the agent does once the password field has the focus; whether the last
 * call was refused (the name says it pastes: refused before anything is pressed).
 */
const DOORS: Array<[string, (s: Session, app: number) => Promise<boolean>]> = [
  [
    'a button named "Use clipboard"',
    (s, app) => refused(s, 'ax_click', { app, query: 'button:Use clipboard' }),
  ],
  ['a button named "Fill"', (s, app) => refused(s, 'ax_click', { app, query: 'button:Fill' })],
  [
    'a tool button that is only an icon',
    (s, app) => refused(s, 'ax_click', { app, query: 'id:icon-paste' }),
  ],
  [
    'the menu item "From Clipboard"',
    async (s, app) => {
      await ok(s, 'ax_click', { app, query: 'menuitem:Edit' });
      return refused(s, 'ax_click', { app, query: 'menuitem:From Clipboard' });
    },
  ],
  [
    'the accelerator ctrl+Return',
    (s, app) => refused(s, 'ax_key_press', { app, key: 'Return', modifiers: ['ctrl'] }),
  ],
  [
    'Tab to a Paste button, then space',
    async (s, app) => {
      await ok(s, 'ax_key_press', { app, key: 'Tab' });
      return refused(s, 'ax_key_press', { app, key: 'space' });
    },
  ],
];

describe('safe mode: paste doors into a focused password field', () => {
  const get = sessionPerSuite({ serverEnv: { AXPAGE_MODE: 'safe' } });

  it.each(DOORS)(
    '%s pastes nothing into it (or is refused), and the clipboard keeps its text',
    async (_door, run) => {
      const session = get();
      const app = await session.launchFixture('paste_doors.py');
      try {
        await ok(session, 'ax_clipboard_write', { text: TEXT });
        await ok(session, 'ax_click', { app: app.pid, query: 'Password' });
        const from = events(app).length;
        if (!(await run(session, app.pid))) {
          // Not refused: the door did fire, the app pasted into the password field, and it
          // got nothing.
          await pollUntil(() => events(app, from).some((e) => e.event === 'door'), {
            timeoutMs: 15_000,
            what: 'the door to fire',
          });
          const doors = events(app, from).filter((e) => e.event === 'door');
          expect(doors.map((e) => e.target)).toContain('pw');
        }
        expect(length(app, 'pw')).toBe(0);
        const read = await ok(session, 'ax_clipboard_read', {});
        expect(read.text).toContain(TEXT);
      } finally {
        await app.stop();
      }
    },
  );

  it('in an app that shows no password field the same doors paste', async () => {
    const session = get();
    const app = await session.launchFixture('paste_doors.py', [], {
      env: { AXPAGE_FIXTURE_PLAIN: '1' },
    });
    try {
      await ok(session, 'ax_clipboard_write', { text: TEXT });
      await ok(session, 'ax_click', { app: app.pid, query: 'User' });
      await ok(session, 'ax_click', { app: app.pid, query: 'button:Use clipboard' });
      await pollUntil(() => length(app, 'user') === TEXT.length, {
        timeoutMs: 15_000,
        what: 'the paste into User',
      });
    } finally {
      await app.stop();
    }
  });
});
