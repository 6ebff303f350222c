/**
 * Side doors past safe mode and the deny list, each shut: a keyboard grab held by another
 * app's prompt while the app called has a popup of its own on top (a toast), text typed
 * after a click that opened a password field, and what the clipboard holds from a denied
 * app or from a "Copy password" button. Oracles: the fixtures' own logs.
 */
import { describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import type { Session } from '../../src/harness/session.js';
import { sessionPerSuite } from './helpers/suite-session.js';

const SECRET = 'Zq7-door-secret';

const events = (app: LaunchedApp, from = 0) => (app.output?.events ?? []).slice(from);

/** Once the vault says it copied: ax_clipboard_read answers, the secret masked. */
async function readMasked(session: Session, vault: LaunchedApp) {
  await vault.output!.waitForEvent((e) => e.event === 'copied', { timeoutMs: 15_000 });
  const read = await session.call('ax_clipboard_read', {});
  expect(read.isError, read.text).toBe(false);
  expect(read.text).not.toContain(SECRET);
  expect(read.text).toMatch(/masked/);
  return read;
}

describe('safe mode: another app holds the keyboard while the app called shows a popup', () => {
  const get = sessionPerSuite({ serverEnv: { AXPAGE_MODE: 'safe' } });

  it.each([
    ['a toast', {}, {}],
    ['a list of suggestions that grabs nothing', { AXPAGE_FIXTURE_TOAST_LIST: '1' }, {}],
    [
      'a list of suggestions, the prompt off screen',
      { AXPAGE_FIXTURE_TOAST_LIST: '1' },
      { AXPAGE_FIXTURE_AT: '-2000,-2000' },
    ],
  ])('%s: sends no key, the prompt holding the grab gets none', async (_kind, appEnv, at) => {
    const session = get();
    const target = await session.launchFixture('toast_app.py', [], { env: appEnv });
    const prompt = await session.launchFixture('grab_prompt.py', [], {
      env: { AXPAGE_FIXTURE_SECRET: SECRET, ...at },
    });
    await prompt.output!.waitForEvent((e) => e.event === 'grabbed', { timeoutMs: 15_000 });
    expect(events(prompt).find((e) => e.event === 'grabbed')?.status).toBe(0);
    const from = events(prompt).length;
    const focus = await session.call('ax_click', { app: target.pid, query: 'Target entry' });
    expect(focus.isError, focus.text).toBe(false);
    for (const key of ['x', 'Return']) {
      const r = await session.call('ax_key_press', { app: target.pid, key });
      expect(r.isError, r.text).toBe(true);
      expect(r.fields.error).toMatch(/another window holds the keyboard/);
    }
    const typed = await session.call('ax_type', {
      app: target.pid,
      text: 'abc',
      delivery_mode: 'foreground',
    });
    expect(typed.isError, typed.text).toBe(true);
    // In the background the entry takes text without key events: the prompt sees none.
    const bg = await session.call('ax_type', { app: target.pid, query: 'Target entry', text: 'q' });
    expect(bg.isError, bg.text).toBe(false);
    await target.output!.waitForEvent((e) => e.event === 'changed', { timeoutMs: 15_000 });
    expect(events(prompt, from).filter((e) => e.event === 'key' || e.event === 'changed')).toEqual(
      [],
    );
    await prompt.stop();
    await target.stop();
  });
});

describe('safe mode: ax_click with text, in the foreground, on a button that opens a password field', () => {
  const get = sessionPerSuite({ serverEnv: { AXPAGE_MODE: 'safe' } });

  it('types nothing into the field the click focused', async () => {
    const session = get();
    const app = await session.launchFixture('opener.py', [], {
      env: { AXPAGE_FIXTURE_SECRET: SECRET },
    });
    const r = await session.call('ax_click', {
      app: app.pid,
      query: 'Sign in',
      text: 'abc',
      delivery_mode: 'foreground',
    });
    expect(r.isError, r.text).toBe(true);
    expect(r.text).toMatch(/password field/);
    expect(events(app).some((e) => e.event === 'opened')).toBe(true);
    // The app handles its input in order: a key sent now is logged after anything before.
    const esc = await session.call('ax_list_windows', { app: app.pid });
    expect(esc.isError, esc.text).toBe(false);
    expect(events(app).filter((e) => e.event === 'changed')).toEqual([]);
    await app.stop();
  });
});

describe('the clipboard', () => {
  describe('holding what a denied app copied', () => {
    const get = sessionPerSuite({ serverEnv: { AXPAGE_DENY_APPS: 'vault_clip.py' } });

    it('is masked on read, and a paste of it makes the field a password field', async () => {
      const session = get();
      const other = await session.launchFixture('toast_app.py', []);
      const vault = await session.launchFixture('vault_clip.py', [], {
        env: { AXPAGE_FIXTURE_SECRET: SECRET, AXPAGE_FIXTURE_COPY_AT_START: '1' },
      });
      const read = await readMasked(session, vault);
      expect(read.text).not.toMatch(/vault|pid \d+/i);
      const focus = await session.call('ax_click', { app: other.pid, query: 'Target entry' });
      expect(focus.isError, focus.text).toBe(false);
      const paste = await session.call('ax_key_press', {
        app: other.pid,
        key: 'v',
        modifiers: ['ctrl'],
      });
      expect(paste.isError, paste.text).toBe(false);
      await other.output!.waitForEvent((e) => e.event === 'changed', { timeoutMs: 15_000 });
      const value = await session.call('ax_get_value', { app: other.pid, query: 'Target entry' });
      expect(value.text).not.toContain(SECRET);
      const tree = await session.call('ax_get_tree', { app: other.pid });
      expect(tree.text).not.toContain(SECRET);
      await vault.stop();
      await other.stop();
    });
  });

  describe("holding what a denied app's helper process copied for it", () => {
    const get = sessionPerSuite({ serverEnv: { AXPAGE_DENY_APPS: 'vault_clip.py' } });

    it.each([
      ['its child', '1'],
      ['one forked into the background', 'fork'],
      ['one in a session of its own', 'setsid'],
    ])('%s: is masked on read', async (_how, via) => {
      const session = get();
      const vault = await session.launchFixture('vault_clip.py', [], {
        env: {
          AXPAGE_FIXTURE_SECRET: SECRET,
          AXPAGE_FIXTURE_COPY_AT_START: '1',
          AXPAGE_FIXTURE_COPY_VIA_XCLIP: via,
        },
      });
      await readMasked(session, vault);
      await vault.stop();
    });
  });

  describe('safe mode, after a list row whose activation copies the password (no password field shows)', () => {
    const get = sessionPerSuite({ serverEnv: { AXPAGE_MODE: 'safe' } });

    it.each([
      ['Enter', { key: 'Return' }],
      ['a double click', { click: 'double' }],
    ])('%s on the row: is masked on read', async (_how, how) => {
      const session = get();
      const vault = await session.launchFixture('vault_clip.py', [], {
        env: { AXPAGE_FIXTURE_SECRET: SECRET, AXPAGE_FIXTURE_LIST: '1' },
      });
      const row = await session.call('ax_click', { app: vault.pid, query: 'Bank' });
      expect(row.isError, row.text).toBe(false);
      const act =
        'key' in how
          ? await session.call('ax_key_press', { app: vault.pid, key: how.key })
          : await session.call('ax_click', {
              app: vault.pid,
              query: 'Bank',
              click_type: how.click,
              delivery_mode: 'foreground',
            });
      expect(act.isError, act.text).toBe(false);
      await readMasked(session, vault);
      await vault.stop();
    });

    it('a copy of text the app shows is read as it is', async () => {
      const session = get();
      const vault = await session.launchFixture('vault_clip.py', [], {
        env: { AXPAGE_FIXTURE_SECRET: SECRET, AXPAGE_FIXTURE_LIST: '1' },
      });
      const focus = await session.call('ax_click', { app: vault.pid, query: 'User' });
      expect(focus.isError, focus.text).toBe(false);
      for (const key of ['a', 'c']) {
        const r = await session.call('ax_key_press', { app: vault.pid, key, modifiers: ['ctrl'] });
        expect(r.isError, r.text).toBe(false);
      }
      const read = await session.call('ax_clipboard_read', {});
      expect(read.isError, read.text).toBe(false);
      expect(read.text).toContain("'alice'");
      await vault.stop();
    });
  });

  describe.each(['Paste', 'Clipboard'])(
    'safe mode: the app\'s own "%s" button, a password field focused',
    (label) => {
      const get = sessionPerSuite({ serverEnv: { AXPAGE_MODE: 'safe' } });

      it('is refused; into an ordinary field it pastes', async () => {
        const session = get();
        const vault = await session.launchFixture('vault_clip.py', [], {
          env: { AXPAGE_FIXTURE_SECRET: SECRET, AXPAGE_FIXTURE_PASTE_LABEL: label },
        });
        const write = await session.call('ax_clipboard_write', { text: 'AgentText123' });
        expect(write.isError, write.text).toBe(false);
        const focus = await session.call('ax_click', { app: vault.pid, query: 'Password' });
        expect(focus.isError, focus.text).toBe(false);
        const from = events(vault).length;
        const r = await session.call('ax_click', { app: vault.pid, query: `button:${label}` });
        expect(r.isError, r.text).toBe(true);
        expect(r.text).toMatch(/pastes into the app's focused field, a password field/);
        // The control: with the user name focused, the same button pastes there.
        const user = await session.call('ax_click', { app: vault.pid, query: 'User' });
        expect(user.isError, user.text).toBe(false);
        const ok = await session.call('ax_click', { app: vault.pid, query: `button:${label}` });
        expect(ok.isError, ok.text).toBe(false);
        const pasted = await vault.output!.waitForEvent((e) => e.event === 'pasted', {
          from,
          timeoutMs: 15_000,
        });
        expect(pasted.widget).toBe('user');
        expect(
          events(vault, from).filter((e) => e.event === 'pasted' && e.widget === 'pw'),
        ).toEqual([]);
        await vault.stop();
      });
    },
  );

  describe.each(['Copy password', 'Copy'])(
    'after a "%s" button while the user name had the focus',
    (label) => {
      const get = sessionPerSuite({ serverEnv: { AXPAGE_MODE: 'safe' } });

      it('is masked on read', async () => {
        const session = get();
        const vault = await session.launchFixture('vault_clip.py', [], {
          env: { AXPAGE_FIXTURE_SECRET: SECRET, AXPAGE_FIXTURE_COPY_LABEL: label },
        });
        const user = await session.call('ax_click', { app: vault.pid, query: 'User' });
        expect(user.isError, user.text).toBe(false);
        const copy = await session.call('ax_click', { app: vault.pid, query: `button:${label}` });
        expect(copy.isError, copy.text).toBe(false);
        await readMasked(session, vault);
        await vault.stop();
      });
    },
  );
});
