/**
 * The GTK3 fixture apps in test/fixtures/apps: each starts in a real headless desktop,
 * registers with AT-SPI under its pid, and prints its ready line; and its stdout oracle
 * reports what an AT-SPI action did (so other tests can trust it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ATSPI } from '../../src/platform/linux/atspi/bus.js';
import type { AtspiBus, ObjectRef } from '../../src/platform/linux/atspi/bus.js';
import { findRegisteredApp } from '../../src/desktop/apps.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { startDesktop } from '../../src/desktop/headless.js';
import type { HeadlessDesktop } from '../../src/desktop/headless.js';
import { pollUntil, procStat } from '../../src/desktop/procs.js';

const APPS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/apps');
const PY = '/usr/bin/python3';

interface Node {
  ref: ObjectRef;
  role: string;
  name: string;
  id: string;
  depth: number;
  childCount: number;
}

/** Breadth-first walk below `root` (concurrent per level), up to `max` nodes. */
async function walk(bus: AtspiBus, root: ObjectRef, max = 3000): Promise<Node[]> {
  const out: Node[] = [];
  let level: Array<{ ref: ObjectRef; depth: number }> = [{ ref: root, depth: 0 }];
  while (level.length > 0 && out.length < max) {
    const nodes = await Promise.all(
      level.map(async ({ ref, depth }) => {
        const [dest, p] = ref;
        const [role, name, id, children] = await Promise.all([
          bus.call(dest, p, ATSPI + 'Accessible', 'GetRoleName').then((r) => r[0] as string),
          bus.getProperty(dest, p, ATSPI + 'Accessible', 'Name') as Promise<string>,
          bus.getProperty(dest, p, ATSPI + 'Accessible', 'AccessibleId') as Promise<string>,
          bus.call(dest, p, ATSPI + 'Accessible', 'GetChildren').then((r) => r[0] as ObjectRef[]),
        ]);
        return { node: { ref, role, name, id, depth, childCount: children.length }, children };
      }),
    );
    const next: Array<{ ref: ObjectRef; depth: number }> = [];
    for (const { node, children } of nodes) {
      out.push(node);
      for (const c of children) next.push({ ref: c, depth: node.depth + 1 });
    }
    level = next;
  }
  return out;
}

async function appRoot(bus: AtspiBus, pid: number): Promise<ObjectRef> {
  const app = await findRegisteredApp(bus, pid);
  if (!app) throw new Error(`pid ${pid} is not registered`);
  return [app.bus, app.path];
}

async function find(bus: AtspiBus, pid: number, role: string, name: string): Promise<Node> {
  const nodes = await walk(bus, await appRoot(bus, pid));
  const hit = nodes.find((n) => n.role === role && n.name === name);
  if (!hit) throw new Error(`no [${role}] "${name}" in pid ${pid}`);
  return hit;
}

async function doAction(bus: AtspiBus, node: Node, index = 0): Promise<void> {
  await bus.call(node.ref[0], node.ref[1], ATSPI + 'Action', 'DoAction', 'i', [index]);
}

const running = (pid: number): boolean => {
  const st = procStat(pid);
  return st !== null && st.state !== 'Z';
};

describe('fixture apps', () => {
  let desktop: HeadlessDesktop;
  let bus: AtspiBus;
  const launched: LaunchedApp[] = [];

  async function launch(file: string, args: string[] = [], env: Record<string, string> = {}) {
    const app = await desktop.launch(PY, [path.join(APPS, file), ...args], {
      stdio: 'pipe',
      name: file,
      env,
    });
    launched.push(app);
    return app;
  }

  beforeAll(async () => {
    desktop = await startDesktop();
    bus = await desktop.a11yBus();
  });

  afterAll(async () => {
    await desktop?.stop();
  });

  it.each([
    ['form.py', 'Fixture Form', 'form'],
    ['long_list.py', 'Fixture List', 'long_list'],
    ['dialog.py', 'Fixture Dialog', 'dialog'],
    ['launcher.py', 'Fixture Launcher', 'launcher'],
    ['big_table.py', 'Fixture Table', 'big_table'],
  ])('%s starts, registers under its pid and prints its ready line', async (file, title, id) => {
    const app = await launch(file);
    expect(app.registered?.pid).toBe(app.pid);
    const ready = await app.output!.waitForEvent((e) => e.event === 'ready', { timeoutMs: 5000 });
    expect(ready).toMatchObject({ app: id, window: title, pid: app.pid });
    // The ready line comes first: nothing is printed before the window is up.
    expect(app.output!.events[0]).toBe(ready);
    const [frame] = (await walk(bus, await appRoot(bus, app.pid), 2)).filter((n) => n.depth === 1);
    expect(frame).toMatchObject({ role: 'frame', name: title });
    console.log(`${file}: ready in ${app.readyMs} ms`);
  });

  it('form: Submit prints every value but the password, whose secret never reaches stdout', async () => {
    const secret = 'Sekrit-' + Date.now();
    const app = await launch('form.py', [], { AXPAGE_FIXTURE_SECRET: secret });
    const out = app.output!;
    await out.waitForEvent((e) => e.event === 'ready');
    const pw = await find(bus, app.pid, 'password text', 'Password');
    expect(pw.id).toBe('password');
    const nameEntry = await find(bus, app.pid, 'text', 'Name');
    await bus.call(
      nameEntry.ref[0],
      nameEntry.ref[1],
      ATSPI + 'EditableText',
      'SetTextContents',
      's',
      ['Ada'],
    );
    await out.waitForEvent(
      (e) => e.event === 'changed' && e.widget === 'name' && e.value === 'Ada',
    );
    const subscribe = await find(bus, app.pid, 'check box', 'Subscribe');
    await doAction(bus, subscribe);
    await out.waitForEvent((e) => e.event === 'toggled' && e.active === true);

    const status = await find(bus, app.pid, 'label', 'Status');
    expect(status.id).toBe('status');
    const from = out.events.length;
    await doAction(bus, await find(bus, app.pid, 'push button', 'Submit'));
    const submitted = await out.waitForEvent((e) => e.event === 'submitted', { from });
    expect(submitted).toMatchObject({
      name: 'Ada',
      email: '',
      subscribe: true,
      color: 'Red',
      password_length: secret.length,
    });
    await find(bus, app.pid, 'label', 'Submitted');
    expect(out.lines.join('\n')).not.toContain(secret);
  });

  it('long_list: 200 rows in a list box, most of them off-screen', async () => {
    const app = await launch('long_list.py');
    const ready = await app.output!.waitForEvent((e) => e.event === 'ready');
    expect(ready).toMatchObject({ rows: 200, scroll: 0 });
    const nodes = await walk(bus, await appRoot(bus, app.pid));
    const list = nodes.find((n) => n.role === 'list box' && n.name === 'Rows');
    expect(list?.childCount).toBe(200);
    const rows = nodes.filter((n) => n.role === 'list item');
    expect(rows.map((r) => r.name)).toEqual(Array.from({ length: 200 }, (_, i) => `Row ${i + 1}`));
    // Most rows are below the 400 px window: their SHOWING state is off.
    const showing = await Promise.all(
      rows.map(async (r) => {
        const [[bits]] = (await bus.call(r.ref[0], r.ref[1], ATSPI + 'Accessible', 'GetState')) as [
          number[],
        ];
        return (bits & (1 << 25)) !== 0;
      }),
    );
    const nShowing = showing.filter(Boolean).length;
    expect(nShowing).toBeGreaterThan(5);
    expect(nShowing).toBeLessThan(30);

    // Focusing a far row scrolls the list, and the fixture reports the new position.
    const row150 = rows[149];
    await bus.call(row150.ref[0], row150.ref[1], ATSPI + 'Component', 'GrabFocus');
    const scrolled = await app.output!.waitForEvent((e) => e.event === 'scrolled');
    expect(scrolled.value as number).toBeGreaterThan(0);
  });

  it('dialog: "Open Dialog" opens a modal alert "Confirm"; OK answers it', async () => {
    const app = await launch('dialog.py');
    const out = app.output!;
    await out.waitForEvent((e) => e.event === 'ready');
    await doAction(bus, await find(bus, app.pid, 'push button', 'Open Dialog'));
    await out.waitForEvent((e) => e.event === 'dialog' && e.state === 'opened');
    const top = (await walk(bus, await appRoot(bus, app.pid), 3)).filter((n) => n.depth === 1);
    const dialog = top.find((n) => n.role === 'alert');
    expect(dialog?.name).toBe('Confirm');
    const nodes = await walk(bus, dialog!.ref);
    expect(nodes.some((n) => n.name === 'Proceed?')).toBe(true);
    const ok = nodes.find((n) => n.role === 'push button' && /OK/i.test(n.name.replace('_', '')));
    expect(ok).toBeDefined();
    await doAction(bus, ok!);
    const resp = await out.waitForEvent((e) => e.event === 'response');
    expect(resp).toMatchObject({ response: 'ok', code: -5 });
    await doAction(bus, await find(bus, app.pid, 'push button', 'Behind'));
    await out.waitForEvent((e) => e.event === 'clicked' && e.widget === 'behind');
  });

  it('launcher: "Launch Child" starts zenity, which registers; stopping the fixture stops it', async () => {
    const app = await launch('launcher.py');
    const out = app.output!;
    await out.waitForEvent((e) => e.event === 'ready');
    await doAction(bus, await find(bus, app.pid, 'push button', 'Launch Child'));
    const launchedEv = await out.waitForEvent((e) => e.event === 'launched');
    const child = launchedEv.pid as number;
    // Right after the fork the child may still be python3 until it execs zenity.
    const comm = await pollUntil(
      () => {
        const name = fs.readFileSync(`/proc/${child}/comm`, 'utf8').trim();
        return name === 'zenity' ? name : null;
      },
      { timeoutMs: 5000, intervalMs: 10, what: 'the child to exec zenity' },
    );
    expect(comm).toBe('zenity');
    const reg = await pollUntil(() => findRegisteredApp(bus, child), {
      timeoutMs: 10_000,
      intervalMs: 20,
      what: 'zenity registering',
    });
    expect(reg.name).toBe('zenity');
    const report = await app.stop();
    expect(report.survivors).toEqual([]);
    expect(running(app.pid)).toBe(false);
    expect(running(child)).toBe(false);
  });

  it('big_table: a tree view with the requested number of rows', async () => {
    const app = await launch('big_table.py', ['500']);
    const ready = await app.output!.waitForEvent((e) => e.event === 'ready');
    expect(ready).toMatchObject({ rows: 500, selected: 1 });
    const table = await find(bus, app.pid, 'table', 'Items');
    expect(table.id).toBe('table');
    const count = await bus.getProperty(
      table.ref[0],
      table.ref[1],
      ATSPI + 'Accessible',
      'ChildCount',
    );
    // Three column headers, then three cells per row.
    expect(count).toBe(3 + 500 * 3);
  });

  it('every fixture launched here stops with the desktop', async () => {
    const pids = launched.map((a) => a.pid);
    expect(pids.length).toBeGreaterThanOrEqual(9);
    await desktop.stop();
    for (const pid of pids) expect(running(pid), String(pid)).toBe(false);
  });
});
