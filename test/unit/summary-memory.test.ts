import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TreeDiff } from '../../src/model/diff.js';
import { DEFAULT_CONFIG } from '../../src/config.js';
import type { Desktop } from '../../src/platform/desktop.js';
import { Publisher } from '../../src/pipeline/publish.js';
import { ShownMemory, lookOf } from '../../src/pipeline/shown.js';
import { SecretEchoes } from '../../src/pipeline/secrets.js';
import { loadConfig } from '../../src/config.js';
import {
  STRUCTURED_MAX_BYTES,
  capStructured,
  collectStateChanges,
  collectTextChanges,
  renderSummary,
  selectVisibleElements,
} from '../../src/summary/index.js';
import { parseSummary } from '../../src/harness/summary-parse.js';
import { buildSnapshot, viewOf, type Spec } from './helpers/synthetic.js';

/** A form: a window with a field, a check box, a disabled button and a password field. */
function form(
  opts: { name?: string; checked?: boolean; extra?: Spec[]; dialog?: boolean } = {},
): Spec[] {
  const roots: Spec[] = [
    {
      role: 'AXWindow',
      name: 'Form',
      frame: [0, 0, 600, 400],
      window: { active: !opts.dialog, title: 'Form' },
      children: [
        {
          role: 'AXTextField',
          name: 'Name',
          value: opts.name ?? '',
          frame: [10, 10, 200, 24],
          flags: ['enabled', 'focused'],
        },
        {
          role: 'AXCheckBox',
          name: 'Subscribe',
          frame: [10, 40, 100, 20],
          flags: opts.checked ? ['enabled', 'checked'] : ['enabled'],
        },
        { role: 'AXButton', name: 'Save', frame: [10, 70, 80, 30], flags: ['disabled'] },
        {
          role: 'AXTextField',
          name: 'Password',
          value: 'hunter2',
          frame: [10, 110, 200, 24],
          flags: ['enabled', 'secure'],
        },
        ...(opts.extra ?? []),
      ],
    },
  ];
  if (opts.dialog) {
    roots.unshift({
      role: 'AXDialog',
      name: 'Confirm',
      frame: [100, 100, 300, 150],
      window: { dialog: true, modal: true, active: true, title: 'Confirm' },
      children: [
        { role: 'AXButton', name: 'OK', frame: [120, 200, 80, 30] },
        { role: 'AXButton', name: 'Cancel', frame: [220, 200, 80, 30] },
      ],
    });
  }
  return roots;
}

/** The same element keeps its ref across views (as the pipeline's matching does). */
function view(opts: Parameters<typeof form>[0] = {}) {
  const v = viewOf(buildSnapshot(form(opts), { app: 'form', pid: 7 }));
  // Dialog elements first in tree order; give every element a ref named after it.
  v.refs = v.snapshot.elements.map((e) => `e${refFor(e.name)}`);
  return v;
}

const REFS = new Map<string, number>();
function refFor(name: string): number {
  if (!REFS.has(name)) REFS.set(name, REFS.size + 1);
  return REFS.get(name) as number;
}

const noDesktop = async (): Promise<Desktop> => {
  throw new Error('no desktop in unit tests');
};

let dir: string;
const savedOut = process.env.AXPAGE_OUT;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-memory-'));
  process.env.AXPAGE_OUT = dir;
});
afterAll(() => {
  if (savedOut === undefined) delete process.env.AXPAGE_OUT;
  else process.env.AXPAGE_OUT = savedOut;
  fs.rmSync(dir, { recursive: true, force: true });
});

function publisher(mode: 'new' | 'full' = 'new'): Publisher {
  return new Publisher(noDesktop, { ...DEFAULT_CONFIG, screenshots: 'off' }, mode);
}

describe('session memory: what visible_elements lists', () => {
  it('lists in full on the first look, then one line on an unchanged screen', async () => {
    const p = publisher();
    const first = parseSummary(
      (await p.publish('ax_get_tree', { view: view(), did: 'Walked' })).text,
    );
    expect(first.lists.visible_elements).toHaveLength(4);
    const second = parseSummary(
      (await p.publish('ax_get_tree', { view: view(), did: 'Walked' })).text,
    );
    expect(second.lists.visible_elements).toBeUndefined();
    expect(second.fields.visible_elements).toBe(
      `4 unchanged since ${path.basename(first.fields.file)}`,
    );
  });

  it('lists only what changed (states, value) and counts the rest since their file', async () => {
    const p = publisher();
    const first = parseSummary((await p.publish('ax_get_tree', { view: view(), did: 'x' })).text);
    const r = await p.publish('ax_get_tree', { view: view({ checked: true }), did: 'x' });
    const s = parseSummary(r.text);
    expect(s.lists.visible_elements).toEqual([
      `[AXCheckBox] "Subscribe" e${refFor('Subscribe')} (10,40 100x20) checked`,
      `(+3 unchanged since ${path.basename(first.fields.file)})`,
    ]);
    expect(r.structured.visible_unchanged).toEqual({
      count: 3,
      since: path.basename(first.fields.file),
    });
    // Then the value changes: the field alone, and "since" is the latest file of the rest.
    const third = parseSummary(
      (await p.publish('ax_get_tree', { view: view({ checked: true, name: 'Ann' }), did: 'x' }))
        .text,
    );
    expect(third.lists.visible_elements?.[0]).toMatch(
      /^\[AXTextField\] "Name" e\d+ .* ='Ann' focused$/,
    );
    expect(third.lists.visible_elements?.[1]).toBe(
      `(+3 unchanged since ${path.basename(s.fields.file)})`,
    );
  });

  it('lists a new dialog in full; detail "full" lists everything again', async () => {
    const p = publisher();
    await p.publish('ax_get_tree', { view: view(), did: 'x' });
    const d = parseSummary(
      (await p.publish('ax_get_tree', { view: view({ dialog: true }), did: 'x' })).text,
    );
    expect(d.fields.window).toBe('"Confirm"');
    expect(d.lists.visible_elements?.map((l) => l.split('"')[1])).toEqual(['OK', 'Cancel']);
    const again = parseSummary(
      (await p.publish('ax_get_tree', { view: view({ dialog: true }), did: 'x', detail: 'full' }))
        .text,
    );
    expect(again.lists.visible_elements).toHaveLength(2);
    const back = parseSummary((await p.publish('ax_get_tree', { view: view(), did: 'x' })).text);
    expect(back.fields.visible_elements).toMatch(/^4 unchanged since /);
  });

  it('lists a dialog in full each time it comes up again, then by memory while it stays', async () => {
    const p = publisher();
    await p.publish('ax_get_tree', { view: view(), did: 'x' });
    const opened = await p.publish('ax_get_tree', { view: view({ dialog: true }), did: 'x' });
    expect(parseSummary(opened.text).lists.visible_elements).toHaveLength(2);
    const stays = parseSummary(
      (await p.publish('ax_get_tree', { view: view({ dialog: true }), did: 'x' })).text,
    );
    expect(stays.fields.visible_elements).toMatch(/^2 unchanged since /);
    await p.publish('ax_get_tree', { view: view(), did: 'x' });
    // The same dialog (same refs) opened again: listed in full, not "unchanged".
    const again = parseSummary(
      (await p.publish('ax_get_tree', { view: view({ dialog: true }), did: 'x' })).text,
    );
    expect(again.lists.visible_elements?.map((l) => l.split('"')[1])).toEqual(['OK', 'Cancel']);
  });

  it('counts a handoff app_switch list as shown', async () => {
    const p = publisher();
    const other = viewOf(
      buildSnapshot(
        [
          {
            role: 'AXDialog',
            name: 'Info',
            frame: [50, 50, 200, 100],
            window: { dialog: true, active: true },
            children: [{ role: 'AXButton', name: 'OK', frame: [60, 100, 80, 30] }],
          },
        ],
        { pid: 99, app: 'zenity' },
      ),
      { refBase: 900 },
    );
    const r = parseSummary(
      (await p.publish('ax_click', { view: view(), did: 'Clicked', appSwitch: other })).text,
    );
    expect(r.lists.app_switch_visible_elements).toEqual(['[AXButton] "OK" e901 (60,100 80x30)']);
    const next = parseSummary((await p.publish('ax_get_tree', { view: other, did: 'x' })).text);
    expect(next.fields.visible_elements).toBe(`1 unchanged since ${path.basename(r.fields.file)}`);
  });

  it('reduces the list to a count for reads that answer, and records nothing', async () => {
    const p = publisher();
    const r = parseSummary(
      (
        await p.publish('ax_get_value', {
          view: view(),
          did: 'Read',
          answer: { key: 'value', value: 'Ann' },
        })
      ).text,
    );
    expect(r.fields.value).toBe("'Ann'");
    expect(r.fields.visible_elements).toBe(
      '4 in file (4 not listed yet; detail: "full" lists them)',
    );
    // Not recorded: the next observation still lists them.
    const t = parseSummary((await p.publish('ax_get_tree', { view: view(), did: 'x' })).text);
    expect(t.lists.visible_elements).toHaveLength(4);
    const again = parseSummary(
      (
        await p.publish('ax_find', {
          view: view(),
          did: 'F',
          answer: { key: 'matches', indices: [2] },
        })
      ).text,
    );
    expect(again.lists.matches).toEqual([
      `[AXCheckBox] "Subscribe" e${refFor('Subscribe')} (10,40 100x20)`,
    ]);
    expect(again.fields.visible_elements).toBe(`4 unchanged since ${path.basename(t.fields.file)}`);
  });

  it('AXPAGE_VISIBLE=full lists every call in full (the baseline)', async () => {
    expect(loadConfig({ AXPAGE_VISIBLE: 'full' }).visible).toBe('full');
    expect(loadConfig({}).visible).toBe('new');
    expect(() => loadConfig({ AXPAGE_VISIBLE: 'some' })).toThrow(/AXPAGE_VISIBLE/);
    const p = publisher('full');
    for (let i = 0; i < 2; i++) {
      const s = parseSummary((await p.publish('ax_get_tree', { view: view(), did: 'x' })).text);
      expect(s.lists.visible_elements).toHaveLength(4);
    }
  });

  it('forgets the oldest refs past its bound', () => {
    const m = new ShownMemory(2);
    const items = selectVisibleElements(view(), { maxInteractive: Infinity }).items;
    const looks = items.map(lookOf);
    m.record(items, looks, 'a.txt');
    expect(m.size).toBe(2);
    const part = m.partition(items, looks);
    expect(part.unchanged.map((i) => i.text)).toEqual(items.slice(-2).map((i) => i.text));
    expect(part.since).toBe('a.txt');
  });
});

describe('element lines: states and values', () => {
  it('shows disabled, focused, checked, secure and field values; never a secure value', () => {
    const s = parseSummary(
      renderSummary({
        status: 'success',
        view: view({ name: 'Hello', checked: true }),
      }).text,
    );
    const lines = s.lists.visible_elements ?? [];
    expect(lines.find((l) => l.includes('"Name"'))).toMatch(/ ='Hello' focused$/);
    expect(lines.find((l) => l.includes('"Subscribe"'))).toMatch(/\) checked$/);
    expect(lines.find((l) => l.includes('"Save"'))).toMatch(/\) disabled$/);
    expect(lines.find((l) => l.includes('"Password"'))).toMatch(/\) secure$/);
    expect(lines.join('\n')).not.toContain('hunter2');
  });

  it('caps a long value', () => {
    const s = renderSummary({ status: 'success', view: view({ name: 'x'.repeat(500) }) });
    const line = s.text.split('\n').find((l) => l.includes('"Name"')) as string;
    expect(line).toMatch(/ ='x+…' focused$/);
    expect(line.length).toBeLessThan(120);
  });
});

function modified(
  after: number,
  fields: Array<'value' | 'name' | 'flags'>,
): TreeDiff['modified'][0] {
  return {
    before: after,
    after,
    changes: fields.map((field) => ({ field, old: '', new: '' })),
    moved: false,
  };
}

describe('changes of an action', () => {
  it('reports state changes as old -> new words and leaves focus out', () => {
    const before = view();
    const after = view({ checked: true });
    after.snapshot.elements[3].flags = ['enabled']; // Save: disabled -> enabled
    after.snapshot.elements[1].flags = ['enabled']; // Name loses focus: not reported
    const diff: TreeDiff = {
      added: [],
      removed: [],
      modified: [modified(1, ['flags']), modified(2, ['flags']), modified(3, ['flags'])],
      matchOf: new Int32Array(0),
    };
    const changes = collectStateChanges(diff, before.snapshot, after.snapshot, after.refs);
    expect(changes.map((c) => [c.label, c.changes])).toEqual([
      ['Subscribe', [{ old: 'unchecked', new: 'checked' }]],
      ['Save', [{ old: 'disabled', new: 'enabled' }]],
    ]);
    const s = parseSummary(
      renderSummary({ status: 'success', view: after, diff: { diff, before } }).text,
    );
    expect(s.lists.state_changes).toEqual([
      `[AXCheckBox] "Subscribe" e${refFor('Subscribe')}: unchecked -> checked`,
      `[AXButton] "Save" e${refFor('Save')}: disabled -> enabled`,
    ]);
  });

  it('says a toggle button that reports pressed with checked once', () => {
    const toggle = (on: boolean): Spec[] => [
      {
        role: 'AXWindow',
        name: 'W',
        frame: [0, 0, 300, 200],
        window: { active: true },
        children: [
          {
            role: 'AXToggleButton',
            name: '7',
            frame: [10, 10, 40, 40],
            flags: on ? ['enabled', 'checked', 'pressed'] : ['enabled'],
          },
        ],
      },
    ];
    const before = viewOf(buildSnapshot(toggle(false)));
    const after = viewOf(buildSnapshot(toggle(true)));
    const diff: TreeDiff = {
      added: [],
      removed: [],
      modified: [modified(1, ['flags'])],
      matchOf: new Int32Array(0),
    };
    expect(
      collectStateChanges(diff, before.snapshot, after.snapshot, after.refs).map((c) => c.changes),
    ).toEqual([[{ old: 'unchecked', new: 'checked' }]]);
    const s = parseSummary(renderSummary({ status: 'success', view: after }).text);
    expect(s.lists.visible_elements).toEqual(['[AXToggleButton] "7" e2 (10,10 40x40) checked']);
  });

  it('caps state changes at 3 and counts the rest', () => {
    const changes = Array.from({ length: 5 }, (_, i) => ({
      role: 'AXCheckBox',
      label: `c${i}`,
      ref: `e${i}`,
      changes: [{ old: 'unchecked', new: 'checked' }],
    }));
    const s = parseSummary(renderSummary({ status: 'success', stateChanges: changes }).text);
    expect(s.lists.state_changes).toHaveLength(4);
    expect(s.lists.state_changes?.[3]).toBe('(+2 more in file)');
  });

  it('does not count object-replacement characters (U+FFFC) as text', () => {
    const before = view({ name: 'Hi' });
    const after = view({ name: 'Hi\ufffc' });
    const diff: TreeDiff = {
      added: [],
      removed: [],
      modified: [modified(1, ['value'])],
      matchOf: new Int32Array(0),
    };
    expect(collectTextChanges(diff, before.snapshot, after.snapshot, after.refs)).toEqual([]);
    const grown = view({ name: '\ufffcHi there' });
    const changes = collectTextChanges(diff, before.snapshot, grown.snapshot, grown.refs);
    expect(changes.map((c) => [c.old, c.new])).toEqual([['Hi', 'Hi there']]);
  });
});

describe('structuredContent caps', () => {
  it('leaves a small object as it is', () => {
    const small = { status: 'success', summary: 'ok', items: [1, 2, 3] };
    expect(capStructured(small)).toBe(small);
  });

  it('cuts a 1 MiB string and says so; the whole stays under the cap', () => {
    const huge = 'k'.repeat(1 << 20);
    const out = capStructured({
      status: 'error',
      error: `unknown key '${huge}'`,
      error_details: { key: huge, list: Array.from({ length: 5000 }, (_, i) => `item ${i}`) },
    });
    const bytes = Buffer.byteLength(JSON.stringify(out));
    expect(bytes).toBeLessThanOrEqual(STRUCTURED_MAX_BYTES);
    expect(String(out.error).endsWith('…')).toBe(true);
    expect(out.status).toBe('error');
    const named = out.truncated_fields as string[];
    expect(named.some((f) => f.startsWith('error ('))).toBe(true);
    expect(named.some((f) => f.startsWith('error_details.key'))).toBe(true);
  });

  it('drops whole fields only as a last resort, naming them', () => {
    const many = Object.fromEntries(
      Array.from({ length: 2000 }, (_, i) => [`field_${i}`, `value ${i}`]),
    );
    const out = capStructured({ status: 'success', summary: 'ok', extra: many });
    expect(Buffer.byteLength(JSON.stringify(out))).toBeLessThanOrEqual(STRUCTURED_MAX_BYTES);
    expect(out.summary).toBe('ok');
    expect(out.truncated_fields).toContain('extra (dropped)');
  });
});

describe('session memory: a summary masked for a secret it seemed to echo', () => {
  it('showed nothing: the elements it listed are listed again on the next call', async () => {
    const p = publisher();
    const echoes = new SecretEchoes();
    echoes.add('EchoSecret-4242');
    // The field's text spreads the secret out: the guard masks the summary's line.
    const first = await p.publish('ax_get_tree', {
      view: view({ name: 'E c h o S e c r e t' }),
      did: 'Walked',
    });
    const masked = p.withoutEchoes(first, echoes);
    expect(masked.text).not.toBe(first.text);
    expect(masked.text).not.toMatch(/E c h o/);
    const second = parseSummary(
      (
        await p.publish('ax_get_tree', {
          view: view({ name: 'E c h o S e c r e t' }),
          did: 'Walked',
        })
      ).text,
    );
    expect(second.fields.visible_elements ?? '').not.toMatch(/unchanged/);
    expect(second.lists.visible_elements).toHaveLength(4);
  });

  it('one the guard left as it was counts as shown', async () => {
    const p = publisher();
    const echoes = new SecretEchoes();
    echoes.add('1234');
    // Coordinates that run the digits of a PIN: no echo, nothing masked.
    const first = await p.publish('ax_get_tree', {
      view: view({ extra: [{ role: 'AXButton', name: 'Minimize', frame: [100, 12, 34, 30] }] }),
      did: 'Walked',
    });
    expect(first.text).toContain('(100,12 34x30)');
    expect(p.withoutEchoes(first, echoes).text).toBe(first.text);
    const second = parseSummary(
      (
        await p.publish('ax_get_tree', {
          view: view({
            extra: [{ role: 'AXButton', name: 'Minimize', frame: [100, 12, 34, 30] }],
          }),
          did: 'Walked',
        })
      ).text,
    );
    expect(second.fields.visible_elements).toMatch(/^5 unchanged since /);
  });
});
