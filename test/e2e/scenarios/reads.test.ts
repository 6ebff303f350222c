/**
 * Issue 7, "A third of the bytes": read tools answer with their result, a repeated
 * observation of an unchanged screen says `unchanged since <file>` in one line, element
 * lines carry the states an agent acts on, actions name their window and state changes,
 * and structuredContent is capped like the text. The fixture's own output and an
 * independent pyatspi read say what is true; the summary is held to what the issue states.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../../src/desktop/apps.js';
import { Session } from '../../../src/harness/session.js';
import { mark, readApp } from '../helpers/oracle.js';

const SUMMARY_CAP = 2048;

let session: Session;
let states: LaunchedApp;

beforeAll(async () => {
  session = await Session.start();
  await session.client.listTools();
  states = await session.launchFixture('states.py');
});

afterAll(async () => {
  await session?.close();
});

describe('visible_elements on a repeated observation', () => {
  it('lists in full first, then says how many are unchanged and since which file', async () => {
    const first = await session.call('ax_get_tree', { app: states.pid });
    expect(first.isError, first.text).toBe(false);
    expect((first.lists.visible_elements ?? []).some((l) => l.includes('"Apply"'))).toBe(true);

    const again = await session.call('ax_get_tree', { app: states.pid });
    expect(again.isError, again.text).toBe(false);
    const m = /^(\d+) unchanged since (\S+)$/.exec(again.fields.visible_elements ?? '');
    expect(m, again.text).not.toBeNull();
    expect(Number(m?.[1])).toBeGreaterThan(0);
    expect(m?.[2]).toBe(path.basename(first.fields.file));
    expect(again.text).not.toContain('"Apply"');

    const full = await session.call('ax_get_tree', { app: states.pid, detail: 'full' });
    expect(full.isError, full.text).toBe(false);
    expect((full.lists.visible_elements ?? []).some((l) => l.includes('"Apply"'))).toBe(true);
  });

  it('element lines carry the states and values an agent acts on', async () => {
    const r = await session.call('ax_get_tree', { app: states.pid, detail: 'full' });
    const lines = r.lists.visible_elements ?? [];
    const line = (name: string): string => {
      const found = lines.find((l) => l.includes(`"${name}"`));
      // A missing line would pass every not.toMatch below: it is a failure of its own.
      expect(found, `a line for "${name}" in ${r.text}`).toBeDefined();
      return found ?? '';
    };
    expect(line('PIN'), r.text).toMatch(/\bsecure\b/);
    expect(line('Disabled Entry'), r.text).toMatch(/\bdisabled\b/);
    expect(line('Note'), r.text).toContain('keep me');
    expect(line('Apply'), r.text).not.toMatch(/\bdisabled\b/);
  });
});

describe('read tools answer with their result, not the visible list', () => {
  it('ax_find lists its matches with refs and positions', async () => {
    const r = await session.call('ax_find', { app: states.pid, query: 'role:textfield' });
    expect(r.isError, r.text).toBe(false);
    const lines = r.text.split('\n');
    for (const name of ['Disabled Entry', 'PIN', 'Note']) {
      // A line for the match, with its ref and its position.
      const line = lines.find(
        (l) => l.includes(`"${name}"`) && /\be[0-9]+\b/.test(l) && /-?\d+,-?\d+/.test(l),
      );
      expect(line, `${name} in ${r.text}`).toBeDefined();
    }
    // Buttons are no match: they belong to the visible list, which a find does not repeat.
    expect(r.text).not.toContain('"Apply"');
    expect(r.text).not.toContain('"Rebuild"');
  });

  it("ax_get_value answers with the field's value", async () => {
    const r = await session.call('ax_get_value', { app: states.pid, query: 'Note' });
    expect(r.isError, r.text).toBe(false);
    const els = await readApp(session, states.pid);
    const truth = els.find((e) => e.name === 'Note' && e.text !== undefined)?.text;
    expect(truth).toBe('keep me');
    expect(r.text).toContain(truth);
    expect(r.text).not.toContain('"Apply"');
  });

  it('ax_get_attributes puts its fields in the text, not only in structuredContent', async () => {
    const r = await session.call('ax_get_attributes', { app: states.pid, query: 'button:Apply' });
    expect(r.isError, r.text).toBe(false);
    const attrs = (r.structured.attributes ?? {}) as Record<string, unknown>;
    expect(attrs.identifier).toBe('apply');
    expect(r.text).toContain(String(attrs.native_role));
    expect(r.text).toContain('apply');
    expect(r.text).not.toContain('"Rebuild"');
  });

  it('ax_list_windows answers with the windows', async () => {
    const r = await session.call('ax_list_windows', { app: states.pid });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toContain('Fixture States');
    expect(r.text).not.toContain('"Apply"');
  });
});

describe('actions name their window and the state they changed', () => {
  it('a click on a check box: window line, and checked in the summary', async () => {
    const from = mark(states);
    const r = await session.call('ax_click', { app: states.pid, query: 'checkbox:Remember' });
    expect(r.isError, r.text).toBe(false);
    const e = await states.output?.waitForEvent((ev) => ev.widget === 'remember', { from });
    expect(e?.active).toBe(true);
    expect(r.fields.window ?? '', r.text).toContain('Fixture States');
    const afterSummaryLine = r.text
      .split('\n')
      .filter((l) => !l.startsWith('summary:'))
      .join('\n');
    expect(afterSummaryLine).toMatch(/"Remember".*checked/);
  });
});

describe('no noise', () => {
  it('object-replacement characters (U+FFFC) are not reported as text', async () => {
    const rich = await session.launchFixture('rich.py');
    const from = mark(rich);
    const r = await session.call('ax_type', { app: rich.pid, query: 'Notes', text: '!' });
    expect(r.isError, r.text).toBe(false);
    const e = await rich.output?.waitForEvent((ev) => ev.widget === 'notes', { from });
    expect(String(e?.value)).toMatch(/\[chip\].*!$/);
    expect(r.text).not.toContain('\ufffc');
    await rich.stop();
  });
});

describe('structuredContent is capped like the text', () => {
  it('a 1 MiB key name is not echoed back', async () => {
    const r = await session.call('ax_key_press', { app: states.pid, key: 'k'.repeat(1 << 20) });
    expect(r.isError, r.text.slice(0, 300)).toBe(true);
    expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(SUMMARY_CAP);
    // The same cap, with room for JSON's quoting.
    expect(Buffer.byteLength(JSON.stringify(r.structured))).toBeLessThanOrEqual(2 * SUMMARY_CAP);
  });
});
