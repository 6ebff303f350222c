/**
 * A server killed with SIGKILL in the middle of typing can leave a key down (its key taps
 * go out in buffer-sized writes), and X then auto-repeats that key into the focused
 * window for good. The next server on the display releases it as it starts. Oracles: X
 * itself (heldInput: XQueryKeymap over a connection that reads no journal and releases
 * nothing) and the fixture's own change events.
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { startServeClient, type ServeClient } from '../../src/harness/serve-client.js';
import { packageRoot, Session } from '../../src/harness/session.js';
import { heldInput } from '../../src/platform/linux/x11.js';

let session: Session;
let entries: LaunchedApp;
const servers: ServeClient[] = [];

/** Long enough that typing it takes many writes to the X server. */
const LONG = 'abcdefghijklmnopqrstuvwxyz'.repeat(400);
/** Kill-mid-typing trials before giving up: each leaves a key down about half the time. */
const TRIALS = 20;

beforeAll(async () => {
  session = await Session.start();
  entries = await session.launchFixture('entries.py');
});

afterAll(async () => {
  for (const s of servers) {
    try {
      process.kill(s.pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  await session?.close();
});

function serverEnv(): Record<string, string> {
  return {
    ...(session.desktop.processEnv() as Record<string, string>),
    AXPAGE_OUT: session.artifactDir,
  };
}

const display = () => session.desktop.env.DISPLAY;
const changes = () => (entries.output?.events ?? []).filter((e) => e.event === 'changed').length;

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

async function until(cond: () => boolean, ms = 15_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
}

/**
 * Kills a server with SIGKILL in the middle of typing a long text, until X reports a key
 * left down (about half the kills do); then checks X repeats it into the field. Returns
 * the keycodes down.
 */
async function leaveKeyHeld(): Promise<number[]> {
  const output = entries.output;
  if (!output) throw new Error('the fixture was started without its output piped');
  let held: number[] = [];
  for (let trial = 0; trial < TRIALS && held.length === 0; trial++) {
    const server = await startServeClient({ env: serverEnv() });
    servers.push(server);
    const from = output.events.length;
    void server
      .call('ax_type', {
        app: entries.pid,
        query: 'Field 1',
        text: LONG,
        clear_first: true,
        delivery_mode: 'foreground',
      })
      .catch(() => undefined);
    // The first character reached the field (after the clear): the taps are on their way.
    await output.waitForEvent((e) => e.event === 'changed' && String(e.value).length > 0, {
      from,
      timeoutMs: 20_000,
    });
    process.kill(server.pid, 'SIGKILL');
    expect(await until(() => gone(server.pid))).toBe(true);
    held = heldInput(display()).keys;
  }
  expect(held.length, `no key was left down in ${TRIALS} kills mid-typing`).toBeGreaterThan(0);
  // What the finding is: X repeats the held key into the field on its own.
  const atKill = changes();
  expect(await until(() => changes() > atKill + 3)).toBe(true);
  expect(heldInput(display()).keys).toEqual(held);
  return held;
}

/**
 * The field receives no more characters. The app may still be working through the typing
 * that reached X before the kill: once two reads through its main loop in a row see no new
 * change (a held key repeats every few tens of ms, so it never gets that far), five more
 * reads see none either.
 */
async function expectFieldQuiet(server: ServeClient): Promise<void> {
  const read = () => server.call('ax_get_value', { app: entries.pid, query: 'Field 1' });
  let settled = -1;
  const end = Date.now() + 60_000;
  while (Date.now() < end) {
    settled = changes();
    await read();
    await read();
    if (changes() === settled) break;
  }
  for (let i = 0; i < 5; i++) await read();
  expect(changes()).toBe(settled);
}

it('a key left down by a server killed mid-typing is released by the next server', async () => {
  await leaveKeyHeld();
  const next = await startServeClient({ env: serverEnv() });
  servers.push(next);
  expect(heldInput(display()).keys).toEqual([]);
  await expectFieldQuiet(next);
});

it('axpage desktop status releases it too', async () => {
  await leaveKeyHeld();
  const status = spawnSync(
    process.execPath,
    [
      path.join(packageRoot(), 'dist', 'cli.js'),
      'desktop',
      'status',
      '--display',
      display().slice(1),
    ],
    { encoding: 'utf8' },
  );
  expect(status.status, status.stderr).toBe(0);
  expect(status.stderr).toMatch(/released \d+ key\(s\) or button\(s\) left held on :\d+/);
  expect(heldInput(display()).keys).toEqual([]);
  const next = await startServeClient({ env: serverEnv() });
  servers.push(next);
  await expectFieldQuiet(next);
});

/** Starts a 10 s drag through `server` and resolves once X reports button 1 down. */
async function holdButton(server: ServeClient): Promise<void> {
  void server
    .call('ax_drag', {
      app: entries.pid,
      from_query: 'Field 1',
      to_query: 'OK',
      duration_ms: 10_000,
    })
    .catch(() => undefined);
  expect(await until(() => (heldInput(display()).buttons & 1) !== 0)).toBe(true);
}

it("a drag cut short by its workflow step's timeout lets the button go when the call returns", async () => {
  const server = await startServeClient({ env: serverEnv() });
  servers.push(server);
  const r = await server.call('ax_workflow', {
    steps: [
      {
        tool: 'ax_drag',
        args: { app: entries.pid, from_query: 'Field 1', to_query: 'OK', duration_ms: 10_000 },
        timeout_ms: 400,
      },
    ],
  });
  expect(r.text).toMatch(/timed out/);
  // The drag would hold it for the rest of its 10 s; cut short, it lets go at once.
  expect(await until(() => (heldInput(display()).buttons & 1) === 0, 3000)).toBe(true);
  // And the next foreground click is not taken for a grab held by someone else.
  const click = await server.call('ax_click', {
    app: entries.pid,
    query: 'Field 1',
    delivery_mode: 'foreground',
  });
  expect(click.isError, click.text).toBe(false);
});

it('a server that exits by a signal or on stdin close mid-drag releases the button first', async () => {
  const exits: Array<[string, (s: ServeClient) => Promise<void> | void]> = [
    ['SIGTERM', (s) => void process.kill(s.pid, 'SIGTERM')],
    ['SIGINT', (s) => void process.kill(s.pid, 'SIGINT')],
    ['SIGHUP', (s) => void process.kill(s.pid, 'SIGHUP')],
    ['stdin close', (s) => s.close()],
  ];
  for (const [how, exit] of exits) {
    const server = await startServeClient({ env: serverEnv() });
    servers.push(server);
    await holdButton(server);
    await exit(server);
    expect(await until(() => gone(server.pid)), `${how}: the server did not exit`).toBe(true);
    expect(heldInput(display()).buttons & 1, `${how} left button 1 down`).toBe(0);
  }
});

it('a process that dies of an uncaught exception mid-drag releases the button on its way out', async () => {
  // The X11 wrapper as the server uses it, in a process of its own that throws.
  const script = `
    import { X11 } from ${JSON.stringify(new URL('../../dist/platform/linux/x11.js', import.meta.url).href)};
    const x = X11.open(${JSON.stringify(display())});
    void x.drag({ x: 10, y: 10 }, { x: 200, y: 200 }, 10000);
    process.stdout.write('dragging\\n');
    process.stdin.once('data', () => { throw new Error('boom'); });
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('dragging') && resolve());
    void exited.then(() => reject(new Error(`the child exited: ${stderr}`)));
  });
  expect(await until(() => (heldInput(display()).buttons & 1) !== 0)).toBe(true);
  child.stdin.write('go\n');
  expect(await exited).toBe(1);
  expect(stderr).toMatch(/boom/);
  expect(heldInput(display()).buttons & 1).toBe(0);
});
