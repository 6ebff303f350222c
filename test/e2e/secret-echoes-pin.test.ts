/**
 * A 4-digit PIN typed into a password field is masked where an app echoes it, but its digits
 * met by chance in other text (an address "12 34 Main St", a ref, coordinates) leave the
 * summary readable: the guard used to join letters and digits across every sign and space,
 * found "1234" there and replaced the whole summary by "•••". Oracles: the fixture's own
 * events (what the app holds), the tree files the server wrote.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/harness/session.js';
import { sessionPerSuite } from './helpers/suite-session.js';

const PIN = '1234';

describe('a PIN typed into a password field, then its digits met in other text', () => {
  const get = sessionPerSuite();

  async function typeUser(session: Session, pid: number, text: string) {
    const r = await session.call('ax_type', {
      app: pid,
      query: 'User name',
      text,
      clear_first: true,
    });
    expect(r.isError, r.text).toBe(false);
    return r;
  }

  it('masks its echoes, and only them', async () => {
    const session = get();
    const app = await session.launchFixture('login_dialog.py', []);
    const typed = await session.call('ax_type', {
      app: app.pid,
      query: 'Password',
      text: PIN,
      clear_first: true,
    });
    expect(typed.isError, typed.text).toBe(false);
    await app.output!.waitForEvent((e) => e.widget === 'password' && e.length === PIN.length, {
      timeoutMs: 15_000,
    });

    // Its digits by chance, across a space: the app holds the text, the summary shows it.
    const from = app.output!.events.length;
    const address = await typeUser(session, app.pid, '12 34 Main St');
    await app.output!.waitForEvent((e) => e.widget === 'user' && e.value === '12 34 Main St', {
      from,
      timeoutMs: 15_000,
    });
    expect(address.text).toMatch(/^status: success/m);
    const tree = await session.call('ax_get_tree', { app: app.pid, detail: 'full' });
    expect(tree.text).toMatch(/^status: success/m);
    expect(tree.text).toContain("='12 34 Main St'");
    expect(fs.readFileSync(tree.fields.file, 'utf8')).toContain('12 34 Main St');

    // Its echoes: as it is, and spread out. The app holds them; nothing we wrote does.
    for (const echo of [`PIN ${PIN}`, 'PIN 1 2 3 4']) {
      const at = app.output!.events.length;
      const r = await typeUser(session, app.pid, echo);
      await app.output!.waitForEvent((e) => e.widget === 'user' && e.value === echo, {
        from: at,
        timeoutMs: 15_000,
      });
      const read = await session.call('ax_get_tree', { app: app.pid, detail: 'full' });
      for (const text of [r.text, read.text, fs.readFileSync(read.fields.file, 'utf8')]) {
        expect(text).not.toContain(echo);
        expect(text).not.toContain(PIN);
      }
      // The rest of the summary still reads.
      expect(read.text).toMatch(/^status: success/m);
      expect(read.text).toContain('"Log in"');
    }
    await app.stop();
  }, 120_000);
});
