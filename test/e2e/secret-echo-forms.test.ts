/**
 * A secret typed into a password field that the app echoes restyled or encoded (its status
 * line in small capitals, or in base32): neither the call's result nor any file the server
 * writes holds the echo in that form. Oracles: the fixture's own event (it got the whole
 * text) and every file in the artifact dir.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionPerSuite } from './helpers/suite-session.js';

/** Every file the server wrote that holds `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  const out: string[] = [];
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, name);
    if (fs.statSync(file).isFile() && fs.readFileSync(file).includes(needle)) out.push(name);
  }
  return out;
}

/** RFC 4648 base32 without its padding. */
function base32(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bits = [...bytes].map((b) => b.toString(2).padStart(8, '0')).join('');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) {
    out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  }
  return out;
}

const SMALL_CAPS = Object.fromEntries(
  [...'abcdefghijklmnopqrstuvwyz'].map((c, i) => [c, [...'ᴀʙᴄᴅᴇꜰɢʜɪᴊᴋʟᴍɴᴏᴘǫʀꜱᴛᴜᴠᴡʏᴢ'][i]]),
);

const CASES = [
  {
    how: 'smallcaps',
    secret: 'Pebble-Zephyr-8642',
    form: (s: string) => [...s.toLowerCase()].map((c) => SMALL_CAPS[c] ?? c).join(''),
  },
  { how: 'base32', secret: 'Falcon-Ember-7530', form: (s: string) => base32(Buffer.from(s)) },
];

describe('full mode: an echo of a typed secret in another form', () => {
  const get = sessionPerSuite();

  it.each(CASES)('in $how is in no result or file', async ({ how, secret, form }) => {
    const session = get();
    const app = await session.launchFixture('echo_search.py', [], {
      env: { AXPAGE_FIXTURE_PASSWORD: '1', AXPAGE_FIXTURE_ENCODE: how },
    });
    try {
      const from = app.output!.events.length;
      const typed = await session.call('ax_type', { app: app.pid, query: 'Search', text: secret });
      expect(typed.isError, typed.text).toBe(false);
      await app.output!.waitForEvent((e) => e.event === 'changed' && e.length === secret.length, {
        timeoutMs: 20_000,
        from,
      });
      const read = await session.call('ax_get_value', { app: app.pid, query: 'id:status' });
      expect(read.isError, read.text).toBe(false);
      const tree = await session.call('ax_get_tree', { app: app.pid });
      expect(tree.isError, tree.text).toBe(false);
      const echo = form(secret);
      for (const r of [typed, read, tree]) {
        expect(r.text).not.toContain(echo);
        expect(JSON.stringify(r.structured)).not.toContain(echo);
      }
      expect(filesHolding(session.artifactDir, echo)).toEqual([]);
    } finally {
      await app.stop();
    }
  });
});
