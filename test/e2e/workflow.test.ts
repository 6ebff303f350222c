/**
 * ax_workflow and ax_undo end to end, through `axpage serve` and the MCP SDK's client on
 * a headless desktop. Every effect is checked outside axpage's own summary: the form
 * fixture prints its widgets' changes (name, email, subscribe), mousepad's file is saved
 * and read from disk, and galculator's display is read in a separate walk.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session, type CallResult } from '../../src/harness/session.js';
import { eventsOf, settled } from './helpers/oracle.js';

let session: Session;
let form: LaunchedApp;
let tmp: string;

beforeAll(async () => {
  session = await Session.start();
  form = await session.launchFixture('form.py');
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-workflow-'));
}, 120_000);

afterAll(async () => {
  await session?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

function events(app: LaunchedApp): Array<Record<string, unknown>> {
  return eventsOf(app);
}

/** The form's own report of a widget's value: its last `changed` event. */
function lastValue(widget: string): unknown {
  const changed = events(form).filter((e) => e.event === 'changed' && e.widget === widget);
  return changed[changed.length - 1]?.value;
}

function expectOk(r: CallResult): void {
  expect(r.isError, r.text).toBe(false);
}

async function waitFor(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('ax_undo', () => {
  it('after ax_set_value, sets the previous text back (the form reports it)', async () => {
    expectOk(
      await session.call('ax_set_value', {
        app: form.pid,
        query: 'textfield:Name',
        value: 'first',
      }),
    );
    expectOk(
      await session.call('ax_set_value', {
        app: form.pid,
        query: 'textfield:Name',
        value: 'second',
      }),
    );
    await waitFor(() => lastValue('name') === 'second', 'name is second');
    const r = await session.call('ax_undo');
    expectOk(r);
    expect(r.fields.summary).toMatch(/^Undid ax_set_value/);
    await waitFor(() => lastValue('name') === 'first', 'name is back to first');
    // One step back at a time: the next undo goes to what was there before "first".
    const again = await session.call('ax_undo');
    expectOk(again);
    await waitFor(() => lastValue('name') !== 'first', 'name is back before first');
  });

  it('after ax_type (append), restores the text before the typing', async () => {
    expectOk(
      await session.call('ax_set_value', { app: form.pid, query: 'textfield:Email', value: 'a@' }),
    );
    expectOk(
      await session.call('ax_type', { app: form.pid, query: 'textfield:Email', text: 'b.org' }),
    );
    await waitFor(() => lastValue('email') === 'a@b.org', 'email typed');
    expectOk(await session.call('ax_undo'));
    await waitFor(() => lastValue('email') === 'a@', 'email back to a@');
  });

  it('after a check box toggle, toggles it back (the form reports both)', async () => {
    const from = events(form).length;
    expectOk(await session.call('ax_click', { app: form.pid, query: 'checkbox:Subscribe' }));
    const on = await form.output?.waitForEvent((e) => e.event === 'toggled', { from });
    const r = await session.call('ax_undo');
    expectOk(r);
    const back = await form.output?.waitForEvent((e) => e.event === 'toggled', {
      from: events(form).indexOf(on as Record<string, unknown>) + 1,
    });
    expect(back?.active).toBe(!on?.active);
  });

  it('after a key press says plainly that it cannot undo it, and changes nothing', async () => {
    expectOk(
      await session.call('ax_set_value', { app: form.pid, query: 'textfield:Name', value: 'kept' }),
    );
    expectOk(await session.call('ax_key_press', { app: form.pid, key: 'Tab' }));
    const from = events(form).length;
    const r = await session.call('ax_undo');
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(
      /cannot be undone: ax_key_press .*Pressed Tab.*key press cannot be reversed/,
    );
    await settled(session, form);
    expect(
      events(form)
        .slice(from)
        .filter((e) => e.event === 'changed'),
    ).toEqual([]);
    expect(lastValue('name')).toBe('kept');
  });

  it('says clearly when the element is gone (its app closed), and restores nothing', async () => {
    const entry = await session.launch('zenity', ['--entry', '--text', 'Undo target']);
    try {
      expectOk(
        await session.call('ax_set_value', {
          app: entry.pid,
          query: 'textfield',
          value: 'gone soon',
        }),
      );
    } finally {
      await entry.stop();
    }
    const r = await session.call('ax_undo');
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/error: the app left the accessibility bus/);
    // The entry was dropped: the next undo is about the action before it, not this one again.
    const next = await session.call('ax_undo');
    expect(next.text).not.toMatch(/left the accessibility bus/);
  });

  it('says it cannot restore a password', async () => {
    const r = await session.call('ax_set_value', {
      app: form.pid,
      query: 'Password',
      value: 'new-secret',
    });
    // The default mode types into password fields (safe mode would refuse).
    expectOk(r);
    const undo = await session.call('ax_undo');
    expect(undo.isError).toBe(true);
    expect(undo.text).toMatch(/password field is never kept/);
  });
});

describe('ax_workflow on the form', () => {
  it('fills a ${} reference with a ref found by an earlier step, and each step writes its pair', async () => {
    const from = events(form).length;
    const r = await session.call('ax_workflow', {
      steps: [
        { tool: 'ax_find', id: 'submit', args: { app: form.pid, query: 'button:Submit' } },
        { tool: 'ax_click', args: { ref: '${submit.element_ref}' } },
      ],
    });
    expectOk(r);
    await form.output?.waitForEvent((e) => e.event === 'clicked' && e.widget === 'submit', {
      from,
    });
    expect(r.fields.summary).toMatch(
      /^Ran 2 steps, all passed; last \(s2\): Clicked \[AXButton\] "Submit"/,
    );
    const steps = r.structured.steps as Array<{ id: string; pair: string; status: string }>;
    expect(steps.map((s) => [s.id, s.status])).toEqual([
      ['submit', 'passed'],
      ['s2', 'passed'],
    ]);
    // One tree file and PNG per step, named in the summary's step list.
    for (const s of steps) {
      expect(r.text).toContain(`${s.id} `);
      expect(r.text).toContain(s.pair);
      expect(fs.existsSync(path.join(session.artifactDir, `${s.pair}.txt`))).toBe(true);
      expect(fs.existsSync(path.join(session.artifactDir, `${s.pair}.png`))).toBe(true);
    }
  });

  it('stops at the first failing step: later steps do not run (the form reports no click)', async () => {
    const from = events(form).length;
    const r = await session.call('ax_workflow', {
      steps: [
        { tool: 'ax_set_value', args: { app: form.pid, query: 'textfield:Name', value: 'mid' } },
        {
          tool: 'ax_assert',
          id: 'check',
          args: { app: form.pid, query: 'textfield:Name', assertions: { value: 'not this' } },
        },
        { tool: 'ax_click', args: { app: form.pid, query: 'button:Submit' } },
      ],
    });
    expect(r.isError).toBe(true);
    expect(r.fields.summary).toMatch(/^Ran 2 of 3 steps: 1 passed, check \(ax_assert\) failed/);
    expect(r.text).toMatch(
      /error: check \(ax_assert\): assertion failed: value expected "not this", got "mid"/,
    );
    await waitFor(() => lastValue('name') === 'mid', 'name set by step 1');
    await settled(session, form);
    expect(
      events(form)
        .slice(from)
        .some((e) => e.event === 'clicked'),
    ).toBe(false);
  });

  it('refuses a bad step before running any: nothing changes in the app', async () => {
    const from = events(form).length;
    const r = await session.call('ax_workflow', {
      steps: [
        { tool: 'ax_set_value', args: { app: form.pid, query: 'textfield:Name', value: 'never' } },
        { tool: 'ax_click', args: { ref: '${nope.element_ref}' } },
      ],
    });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/step 2 \(s2, ax_click\), ref: \$\{nope.element_ref\} names 'nope'/);
    await settled(session, form);
    expect(events(form).slice(from)).toEqual([]);
  });

  it('rolls back the text and the check box on failure, and reports what was rolled back', async () => {
    expectOk(
      await session.call('ax_set_value', { app: form.pid, query: 'textfield:Name', value: 'orig' }),
    );
    const subscribed = (
      await session.call('ax_get_value', {
        app: form.pid,
        query: 'checkbox:Subscribe',
      })
    ).structured.value;
    const from = events(form).length;
    const r = await session.call('ax_workflow', {
      rollback: true,
      steps: [
        { tool: 'ax_type', args: { app: form.pid, query: 'textfield:Name', text: '-changed' } },
        { tool: 'ax_click', args: { app: form.pid, query: 'checkbox:Subscribe' } },
        { tool: 'ax_key_press', args: { app: form.pid, key: 'Escape' } },
        { tool: 'ax_wait_for', args: { app: form.pid, query: 'button:Nothing', timeout_ms: 300 } },
      ],
    });
    expect(r.isError).toBe(true);
    expect(r.fields.summary).toMatch(
      /s4 \(ax_wait_for\) failed; rolled back 2 actions, 1 not reversible/,
    );
    expect(r.text).toMatch(/not undone: ax_key_press/);
    // The form's own events: typed, toggled, then both taken back.
    const after = events(form).slice(from);
    const toggles = after.filter((e) => e.event === 'toggled');
    expect(toggles.length).toBe(2);
    expect(toggles[1].active).toBe(!toggles[0].active);
    expect(String(toggles[1].active)).toBe(subscribed);
    expect(after.some((e) => e.widget === 'name' && e.value === 'orig-changed')).toBe(true);
    await waitFor(() => lastValue('name') === 'orig', 'name rolled back to orig');
  });
  it('ends a step at its timeout_ms and reports it as timed out; progress comes per step', async () => {
    const progress: string[] = [];
    const result = await session.client.callTool(
      {
        name: 'ax_workflow',
        arguments: {
          steps: [
            { tool: 'ax_find', args: { app: form.pid, query: 'button:Submit' } },
            {
              tool: 'ax_wait_for',
              id: 'slow',
              timeout_ms: 400,
              args: { app: form.pid, query: 'button:Never', timeout_ms: 20_000 },
            },
          ],
        },
      },
      undefined,
      { onprogress: (p) => progress.push(String(p.message)), timeout: 60_000 },
    );
    expect(result.isError).toBe(true);
    const structured = result.structuredContent as Record<string, unknown>;
    expect(structured.failed_step).toBe('slow');
    expect(structured.error).toMatch(/slow \(ax_wait_for\) did not finish within 400 ms/);
    expect(progress).toContain('step 1/2: s1 ax_find');
    expect(progress).toContain('step 2/2: slow ax_wait_for');
  });
});

describe('ax_workflow on real apps', () => {
  it('galculator: 7 + 8 = in one workflow; a separate walk reads 15 on the display', async () => {
    const home = fs.mkdtempSync(path.join(tmp, 'galculator-'));
    const calc = await session.launch('galculator', [], { env: { HOME: home } });
    try {
      const click = (key: string) => ({
        tool: 'ax_click',
        args: { app: calc.pid, query: `button:${key}` },
      });
      const r = await session.call('ax_workflow', {
        steps: [
          click('7'),
          click('+'),
          click('8'),
          click('='),
          {
            tool: 'ax_assert',
            args: { app: calc.pid, query: 'textarea', assertions: { contains_text: '15' } },
          },
        ],
      });
      expectOk(r);
      expect(r.structured.steps_passed).toBe(5);
      const tree = await session.call('ax_get_tree', { app: calc.pid });
      const display = /\[AXTextArea \(text\)\] "([^"]*)"/.exec(
        fs.readFileSync(tree.fields.file, 'utf8'),
      );
      expect(display?.[1]).toBe('15');
      // Its keys are toggle buttons that pop back up: a key press is not a toggle to undo.
      const undo = await session.call('ax_undo');
      expect(undo.isError).toBe(true);
      expect(undo.text).toMatch(
        /cannot be undone: ax_click .*"=".* so what it did was not a toggle/,
      );
    } finally {
      await calc.stop();
    }
  });

  it('mousepad: a failing step keeps the typing without rollback and undoes it with rollback (file on disk)', async () => {
    const file = path.join(tmp, 'note.txt');
    fs.writeFileSync(file, 'original line\n');
    const pad = await session.launch('mousepad', [file]);
    try {
      const run = (text: string, rollback: boolean) =>
        session.call('ax_workflow', {
          rollback,
          steps: [
            { tool: 'ax_type', args: { app: pad.pid, query: 'textarea', text } },
            {
              tool: 'ax_assert',
              args: { app: pad.pid, query: 'textarea', assertions: { contains_text: 'ABSENT' } },
            },
          ],
        });
      const save = async (marker: string) => {
        expectOk(await session.call('ax_key_press', { app: pad.pid, key: 'ctrl+s' }));
        await waitFor(
          () => fs.readFileSync(file, 'utf8').includes(marker),
          `saved ${marker}`,
          10_000,
        );
      };
      const kept = await run('KEPT', false);
      expect(kept.isError).toBe(true);
      await save('KEPT');
      expect(fs.readFileSync(file, 'utf8')).toMatch(/KEPT/);

      const rolled = await run('ROLLED', true);
      expect(rolled.isError).toBe(true);
      expect(rolled.fields.summary).toMatch(/rolled back 1 action/);
      // Saved again after an edit that carries a marker, so the save is seen on disk.
      expectOk(await session.call('ax_type', { app: pad.pid, query: 'textarea', text: 'END' }));
      await save('END');
      const text = fs.readFileSync(file, 'utf8');
      expect(text).not.toMatch(/ROLLED/);
      expect(text).toMatch(/KEPT/);
    } finally {
      await pad.stop();
    }
  });
});
