/**
 * Finding and reading end to end: queries in every form, explorer options, attributes,
 * values, waits and assertions, on gtk3-widget-factory and our fixture apps.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';
import { eventsOf } from './helpers/oracle.js';

let session: Session;
let factory: LaunchedApp;
let form: LaunchedApp;

beforeAll(async () => {
  session = await Session.start();
  await session.client.listTools();
  factory = await session.launch('gtk3-widget-factory');
  form = await session.launchFixture('form.py');
});

afterAll(async () => {
  await session?.close();
});

type Found = {
  found: boolean;
  count: number;
  role?: string;
  title?: string;
  element_ref?: string;
  strategy?: string;
  candidates: Array<{ ref: string }>;
  tried: string[];
  suggestions?: string[];
  position?: number[];
  size?: number[];
};

describe('ax_find', () => {
  it('finds by plain text', async () => {
    const r = await session.call('ax_find', { app: form.pid, query: 'Submit' });
    const s = r.structured as Found;
    expect(r.isError, r.text).toBe(false);
    expect(s).toMatchObject({ found: true, role: 'AXButton', title: 'Submit' });
    expect(s.element_ref).toMatch(/^e[0-9]+$/);
  });

  it('finds by role:title', async () => {
    const r = await session.call('ax_find', { app: form.pid, query: 'checkbox:Subscribe' });
    expect((r.structured as Found).role).toBe('AXCheckBox');
  });

  it('finds by regex', async () => {
    const r = await session.call('ax_find', {
      app: form.pid,
      query: '/^sub(mit|scribe)$/i',
      strategy: 'regex',
    });
    const s = r.structured as Found;
    expect(s.found).toBe(true);
    expect(s.count).toBe(2);
  });

  it('finds by path', async () => {
    const r = await session.call('ax_find', {
      app: form.pid,
      query: 'window:"Fixture Form" >> button:Submit',
    });
    const s = r.structured as Found;
    expect(r.isError, r.text).toBe(false);
    expect(s).toMatchObject({ found: true, title: 'Submit' });
  });

  it('returns candidates for an ambiguous query, all listed in the file', async () => {
    const r = await session.call('ax_find', { app: factory.pid, query: 'role:button' });
    const s = r.structured as Found;
    expect(s.count).toBeGreaterThan(3);
    expect(s.candidates.length).toBeGreaterThan(1);
    const file = fs.readFileSync(r.fields.file, 'utf8');
    for (const c of s.candidates) expect(file).toContain(` ${c.ref} `);
  });

  it('answers with its matches in the summary, not with the visible list', async () => {
    const r = await session.call('ax_find', { app: factory.pid, query: 'role:button' });
    const s = r.structured as Found;
    const matches = r.lists.matches;
    // gtk3-widget-factory has more buttons than the summary lists: the cut shows.
    expect(s.count, r.text).toBeGreaterThan(10);
    expect(matches.length).toBe(11);
    // Best first, as the structured candidates; each line names ref, role and position.
    const refs = matches.map((l) => / (e\d+) \(/.exec(l)?.[1]).filter(Boolean);
    expect(refs.slice(0, 3)).toEqual(s.candidates.slice(0, 3).map((c) => c.ref));
    expect(matches[0]).toMatch(/^\[AX\w+\] ".*" e\d+ \(-?\d+,-?\d+ \d+x\d+\)/);
    expect(matches.at(-1)).toBe(`(+${s.count - 10} more in file)`);
    // The file lists every match.
    const file = fs.readFileSync(r.fields.file, 'utf8');
    for (const ref of refs) expect(file).toContain(` ${ref} `);
    expect(r.lists.visible_elements).toBeUndefined();
    expect(r.fields.visible_elements).toMatch(/^\d+ (in file|unchanged since )/);
  });

  it('says what was tried and suggests names when nothing matches', async () => {
    const r = await session.call('ax_find', { app: form.pid, query: 'Submitt' });
    const s = r.structured as Found;
    expect(s.found).toBe(false);
    expect(s.tried.length).toBeGreaterThan(0);
    expect(s.suggestions).toContain('Submit');
    expect(r.fields.summary).toMatch(/tried/);
  });

  it('says a match is there but not on screen, with its ref, rather than "no match"', async () => {
    // "Get Busy" is on a notebook page of the widget factory that is not the one shown.
    const r = await session.call('ax_find', { app: factory.pid, query: 'button:Get Busy' });
    const s = r.structured as Found & {
      hidden_matches?: Array<{ ref: string; title: string }>;
    };
    expect(s.found).toBe(false);
    expect(s.hidden_matches?.[0]?.title).toBe('Get Busy');
    const ref = s.hidden_matches![0].ref;
    expect(r.fields.summary).toContain(`not on screen`);
    expect(r.fields.summary).toContain(ref);
    // The tree file has it, offscreen, under that ref; include_hidden finds the same one.
    const tree = fs.readFileSync(r.fields.file, 'utf8');
    expect(tree).toMatch(new RegExp(`"Get Busy" ${ref} .*offscreen`));
    const all = await session.call('ax_find', {
      app: factory.pid,
      query: 'button:Get Busy',
      include_hidden: true,
    });
    expect((all.structured as Found).element_ref).toBe(ref);
  });

  it('position scope finds the widget under a point', async () => {
    const target = (await session.call('ax_find', { app: form.pid, query: 'button:Submit' }))
      .structured as Found;
    const [x, y] = target.position ?? [0, 0];
    const [w, h] = target.size ?? [0, 0];
    const r = await session.call('ax_find', {
      app: form.pid,
      scope: 'position',
      x: x + w / 2,
      y: y + h / 2,
    });
    expect((r.structured as Found).element_ref).toBe(target.element_ref);
  });

  it('filters and element types narrow the search', async () => {
    const r = await session.call('ax_find', {
      app: form.pid,
      element_types: ['text_field'],
      filter: { titleContains: 'mai' },
    });
    expect(r.structured).toMatchObject({ found: true, title: 'Email', count: 1 });
  });
});

describe('reading', () => {
  it('ax_get_attributes tells everything and masks secure values', async () => {
    const r = await session.call('ax_get_attributes', { app: form.pid, query: 'Password' });
    expect(r.isError, r.text).toBe(false);
    const attrs = (r.structured as { attributes: Record<string, unknown> }).attributes;
    expect(attrs.role).toBe('AXTextField');
    expect(attrs.value).toBe('•••');
    expect(JSON.stringify(r.structured)).not.toContain('hunter2');
    // The fields are in the text too.
    expect(r.lists.attributes[0]).toMatch(/^role: 'AXTextField \(password text\)'$/);
    expect(r.lists.attributes).toContain("value: '•••'");
    expect(r.text).not.toContain('hunter2');
  });

  it('ax_get_value reads fresh values', async () => {
    await session.call('ax_set_value', { app: form.pid, query: 'Name', value: 'Grace' });
    const r = await session.call('ax_get_value', { app: form.pid, query: 'Name' });
    expect(r.structured).toMatchObject({ found: true, value: 'Grace' });
    expect(r.fields.value).toBe("'Grace'");
  });
});

describe('acting on what find says', () => {
  it('typing into a disabled field is a clear error, not a silent no-op', async () => {
    const r = await session.call('ax_type', {
      app: factory.pid,
      query: 'role:textfield enabled:false nth:1',
      text: 'x',
      delivery_mode: 'foreground',
    });
    expect(r.isError).toBe(true);
    expect(r.fields.error).toMatch(/disabled/);
  });
});

describe('dragging', () => {
  it('ax_drag moves a slider with a real pointer and its value changes', async () => {
    const found = await session.call('ax_find', {
      app: factory.pid,
      query: 'role:slider enabled:true',
    });
    const s = found.structured as Found;
    expect(s.found, found.text).toBe(true);
    const [x, y] = s.position ?? [0, 0];
    const [w, h] = s.size ?? [0, 0];
    const before = (await session.call('ax_get_value', { ref: s.element_ref })).structured.value;
    const r = await session.call('ax_drag', {
      app: factory.pid,
      from_ref: s.element_ref,
      to_x: x + w - 2,
      to_y: y + h / 2,
    });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toMatch(/route: xtest delivery: foreground effect: confirmed/);
    const after = (await session.call('ax_get_value', { ref: s.element_ref })).structured.value;
    expect(Number(after)).toBeGreaterThan(Number(before));
  });
});

describe('setting a number', () => {
  it('ax_set_value sets a slider through its Value interface and reads it back', async () => {
    const found = await session.call('ax_find', {
      app: factory.pid,
      query: 'role:slider enabled:true',
    });
    const ref = (found.structured as Found).element_ref;
    const r = await session.call('ax_set_value', { ref, value: '1' });
    expect(r.isError, r.text).toBe(false);
    expect(r.text).toMatch(/route: ax delivery: background effect: confirmed/);
    expect((await session.call('ax_get_value', { ref })).structured.value).toBe('1');
    const out = await session.call('ax_set_value', { ref, value: '1000000' });
    expect(out.isError).toBe(true);
    expect(out.fields.error).toMatch(/outside/);
  });
});

describe('waiting', () => {
  it('ax_wait_idle returns and says how long it waited', async () => {
    const r = await session.call('ax_wait_idle', { app: factory.pid, timeout_ms: 3000 });
    expect(r.isError, r.text).toBe(false);
    expect(r.structured).toMatchObject({ idle: true });
  });

  it('ax_wait_for returns when a fixture changes later', async () => {
    const app = await session.launchFixture('dialog.py', ['--open-on-usr1']);
    // The dialog opens only once the wait has said "not yet": the change comes later.
    let signalled = false;
    const result = await session.client.callTool(
      {
        name: 'ax_wait_for',
        arguments: { app: app.pid, query: 'button:OK', timeout_ms: 30_000 },
      },
      undefined,
      {
        timeout: 60_000,
        onprogress: (p) => {
          if (!signalled && String(p.message).startsWith('waiting: not yet')) {
            signalled = true;
            process.kill(app.pid, 'SIGUSR1');
          }
        },
      },
    );
    expect(result.isError, JSON.stringify(result.content)).not.toBe(true);
    expect(signalled).toBe(true);
    const s = result.structuredContent as { satisfied: boolean; waited_ms: number };
    expect(s.satisfied).toBe(true);
    expect(s.waited_ms).toBeGreaterThan(0);
    expect(eventsOf(app).some((e) => e.state === 'opened')).toBe(true);
    const gone = await session.call('ax_wait_for', {
      app: app.pid,
      query: 'button:Nothing Like This',
      timeout_ms: 300,
    });
    expect(gone.isError).toBe(true);
    expect(gone.fields.error).toMatch(/timed out/);
    await app.stop();
  });
});

describe('ax_assert', () => {
  it('passes on real state', async () => {
    const r = await session.call('ax_assert', {
      app: form.pid,
      query: 'button:Submit',
      assertions: { exists: true, enabled: true, visible: true, role: 'AXButton', title: 'Submit' },
    });
    expect(r.structured).toMatchObject({ passed: true, failures: [] });
  });

  it('fails with expected and actual', async () => {
    const r = await session.call('ax_assert', {
      app: form.pid,
      query: 'checkbox:Subscribe',
      assertions: { checked: true, title: 'Unsubscribe' },
    });
    const s = r.structured as {
      passed: boolean;
      failures: Array<{ property: string; expected: unknown; actual: unknown }>;
    };
    expect(s.passed).toBe(false);
    expect(s.failures).toContainEqual({
      property: 'title',
      expected: 'Unsubscribe',
      actual: 'Subscribe',
    });
    expect(r.fields.summary).toMatch(/^FAILED/);
  });

  it('exists: false passes for a missing element', async () => {
    const r = await session.call('ax_assert', {
      app: form.pid,
      query: 'button:Not There',
      assertions: { exists: false },
    });
    expect(r.structured).toMatchObject({ passed: true });
  });
});
