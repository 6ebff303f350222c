/**
 * Faults end to end: apps frozen (SIGSTOP) or killed while a call waits on them, the
 * accessibility registry and bus killed under a running server, the artifact dir removed
 * or swapped for a symlink. Each case checks the error the agent reads, that the same
 * server recovers, and, by the fixture app's own JSON log, that it saw no input it was
 * not meant to get. Processes are stopped, continued and killed by pid only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session, type CallResult } from '../../src/harness/session.js';
import { eventsOf } from './helpers/oracle.js';
import { continueAll, signal } from './helpers/signals.js';

/** The per-call timeout of the AT-SPI client: one unanswered call costs at least this. */
const CALL_TIMEOUT_MS = 3000;

let session: Session;

beforeAll(async () => {
  session = await Session.start();
  await session.client.listTools();
});

afterAll(async () => {
  // A test that failed half way must not leave a stopped process behind.
  continueAll();
  await session?.close();
});

function events(app: LaunchedApp): Array<Record<string, unknown>> {
  return eventsOf(app);
}

/** Events other than the ready line: input the app acted on. */
function inputEvents(app: LaunchedApp): Array<Record<string, unknown>> {
  // busy.py's once-a-second `updates` count is its own timer, not input.
  return events(app).filter((e) => !['ready', 'quit', 'updates'].includes(String(e.event)));
}

/** The ax_list_apps line of this pid, or undefined. */
function listLine(r: CallResult, pid: number): string | undefined {
  const file = fs.readFileSync(r.fields.file, 'utf8');
  return file.split('\n').find((l) => l.startsWith(`pid:${pid} `));
}

/** Calls until `done` holds (at most `tries` times, a pause between): recovery is eventual. */
async function callUntil(
  tool: string,
  args: Record<string, unknown>,
  done: (r: CallResult) => boolean,
  tries = 30,
): Promise<CallResult> {
  let r = await session.call(tool, args);
  for (let i = 1; i < tries && !done(r); i++) {
    await new Promise((res) => setTimeout(res, 500));
    r = await session.call(tool, args);
  }
  return r;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('a frozen app (SIGSTOP)', () => {
  it('costs other apps no call timeout, is named not responding, and recovers on SIGCONT', async () => {
    const frozen = await session.launchFixture('toggles.py');
    const other = await session.launchFixture('form.py');
    expect((await session.call('ax_get_tree', { app: frozen.pid })).isError).toBe(false);
    expect((await session.call('ax_get_tree', { app: other.pid })).isError).toBe(false);

    signal(frozen.pid, 'SIGSTOP');
    // Calls on the other app and the app list still work. How long they take beside a
    // frozen app is measured by the bench's soak section (no timed assertions here); the
    // figures are printed.
    const calls = [
      await session.call('ax_list_apps', {}),
      await session.call('ax_get_tree', { app: other.pid }),
      await session.call('ax_click', { app: other.pid, query: 'button:Submit' }),
    ];
    for (const r of calls) expect(r.isError, r.text).toBe(false);
    console.log(
      `beside a frozen app: ax_list_apps, ax_get_tree, ax_click took ${calls.map((r) => Math.round(r.ms)).join(', ')} ms (the call timeout is ${CALL_TIMEOUT_MS} ms)`,
    );
    await other.output?.waitForEvent((e) => e.event === 'clicked' && e.widget === 'submit');

    // The list says so (its process is seen stopped) instead of dropping it.
    const listed = calls[0];
    expect(listLine(listed, frozen.pid)).toMatch(/not responding/);
    expect(listLine(listed, other.pid)).not.toMatch(/not responding/);

    // Calls on the frozen app fail at once, saying what is wrong and what to do.
    for (const args of [{ app: frozen.pid }, { app: 'Fixture Toggles' }]) {
      const r = await session.call('ax_get_tree', args);
      expect(r.isError).toBe(true);
      expect(r.structured.error_code).toBe('app_not_responding');
      expect(r.fields.error).toMatch(/is not responding: its process is stopped.*kill -CONT/);
      expect(r.text).not.toMatch(/exited|no accessible app/);
    }
    const click = await session.call('ax_click', { app: frozen.pid, query: 'button:MS' });
    expect(click.isError).toBe(true);
    expect(click.fields.error).toMatch(/not responding/);

    signal(frozen.pid, 'SIGCONT');
    const back = await callUntil('ax_get_tree', { app: frozen.pid }, (r) => !r.isError);
    expect(back.isError, back.text).toBe(false);
    expect(listLine(await session.call('ax_list_apps', {}), frozen.pid)).not.toMatch(
      /not responding/,
    );
    // The refused click was never delivered, not even late.
    expect(inputEvents(frozen)).toEqual([]);
    await frozen.stop();
    await other.stop();
  });
});

describe('an app killed while a call waits on it', () => {
  it('mid-walk: the walk ends with the exit, and the server carries on', async () => {
    const app = await session.launchFixture('big_table.py');
    expect((await session.call('ax_list_apps', {})).isError).toBe(false);
    // Stopped first: the call is refused at once when its liveness check sees the stop, and
    // walks, waiting on the app until it dies, when the stop lands after the check.
    signal(app.pid, 'SIGSTOP');
    const walk = session.call('ax_get_tree', { app: app.pid });
    await sleep(1000);
    signal(app.pid, 'SIGKILL');
    await app.exited;
    const r = await walk;
    expect(r.isError).toBe(true);
    // Refused as not responding (stopped), or, when the walk went out first: killed during
    // resolution the app is simply not found, during the walk it is gone.
    expect(r.fields.error).toMatch(
      /no longer\) an app on the accessibility bus. It has exited|no accessible app has pid|is not responding/,
    );
    const after = await session.call('ax_list_apps', {});
    expect(after.isError, after.text).toBe(false);
    expect(listLine(after, app.pid)).toBeUndefined();
  });

  it('mid-action: the action that hung the app ends with its exit, and the server carries on', async () => {
    // A stopped app is refused before any action; this one hangs in the press itself.
    const app = await session.launchFixture('stall.py', ['--stall-on-poke']);
    expect((await session.call('ax_get_tree', { app: app.pid })).isError).toBe(false);
    const click = session.call('ax_click', { app: app.pid, query: 'button:Poke' });
    await app.output!.waitForEvent((e) => e.event === 'stalled');
    signal(app.pid, 'SIGKILL');
    await app.exited;
    const r = await click;
    // Delivered, then the app died under it: said so, and done once (not repeated).
    expect(r.isError, r.text).toBe(false);
    expect(r.fields.summary).toMatch(/^The app exited \(stall\.py, pid \d+\)\. Clicked .*"Poke"/);
    expect(inputEvents(app)).toEqual([{ event: 'poked' }, { event: 'stalled' }]);
    const next = await session.launchFixture('toggles.py');
    const ok = await session.call('ax_get_tree', { app: next.pid });
    expect(ok.isError, ok.text).toBe(false);
    expect(inputEvents(next)).toEqual([]);
    await next.stop();
  });
});

describe('an app walked before and gone since', () => {
  it('named by its old pid: looked up again and not found, with the apps that run', async () => {
    const app = await session.launchFixture('toggles.py');
    expect((await session.call('ax_get_tree', { app: app.pid })).isError).toBe(false);
    signal(app.pid, 'SIGKILL');
    await app.exited;
    // Until the registry has dropped it (a moment after the exit).
    for (let i = 0; i < 50; i++) {
      if (listLine(await session.call('ax_list_apps', {}), app.pid) === undefined) break;
      await sleep(100);
    }
    const r = await session.call('ax_get_tree', { app: app.pid });
    expect(r.isError).toBe(true);
    // The lookup's answer, not a walk of the connection the app had: its name went with it.
    expect(r.structured.error_code).toBe('app_not_found');
    expect(r.fields.error).toMatch(new RegExp(`no accessible app has pid ${app.pid}`));
  });
});

describe('the artifact dir', () => {
  it('removed while running: the next call recreates it privately', async () => {
    const app = await session.launchFixture('toggles.py');
    fs.rmSync(session.artifactDir, { recursive: true, force: true });
    const r = await callUntil('ax_get_tree', { app: app.pid }, (x) => !x.isError, 3);
    expect(r.isError, r.text).toBe(false);
    expect(fs.existsSync(r.fields.file)).toBe(true);
    expect(fs.statSync(session.artifactDir).mode & 0o777).toBe(0o700);
    expect(inputEvents(app)).toEqual([]);
    await app.stop();
  });

  it('swapped for a symlink while running: nothing is written through it, and no click is done', async () => {
    const app = await session.launchFixture('form.py');
    expect((await session.call('ax_get_tree', { app: app.pid })).isError).toBe(false);
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-elsewhere-'));
    const moved = `${session.artifactDir}.moved`;
    fs.renameSync(session.artifactDir, moved);
    fs.symlinkSync(elsewhere, session.artifactDir);
    try {
      const r = await session.call('ax_click', { app: app.pid, query: 'button:Submit' });
      expect(r.isError).toBe(true);
      expect(r.fields.error).toMatch(
        /artifact dir .* was replaced while running \(it is now a symbolic link\)/,
      );
      expect(fs.readdirSync(elsewhere)).toEqual([]);
      // Refused before acting: the app saw no click (the round trip below would show one).
      expect((await session.call('ax_get_tree', { app: app.pid })).isError).toBe(true);
      expect(inputEvents(app)).toEqual([]);
    } finally {
      fs.rmSync(session.artifactDir, { force: true });
      fs.renameSync(moved, session.artifactDir);
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
    const ok = await session.call('ax_get_tree', { app: app.pid });
    expect(ok.isError, ok.text).toBe(false);
    await app.stop();
  });
});

describe('the accessibility daemons killed under a running server', () => {
  it('the registry: the server keeps working and still hears change events', async () => {
    const app = await session.launchFixture('busy.py', ['--labels', '1', '--interval-ms', '100']);
    expect((await session.call('ax_get_tree', { app: app.pid })).isError).toBe(false);
    for (const p of session.desktop.pids.filter((p) => p.name.startsWith('at-spi2-registryd'))) {
      signal(p.pid, 'SIGKILL');
    }
    await session.desktop.restartAccessibility();
    // Reads reuse the last walk until an event says the app changed: the label only moves
    // on if events still flow after the registry came back.
    const first = await callUntil(
      'ax_get_value',
      { app: app.pid, query: 'tick' },
      (r) => !r.isError,
    );
    expect(first.isError, first.text).toBe(false);
    const later = await callUntil(
      'ax_get_value',
      { app: app.pid, query: 'tick' },
      (r) => !r.isError && r.fields.value !== first.fields.value,
      10,
    );
    expect(later.fields.value).not.toBe(first.fields.value);
    expect(inputEvents(app)).toEqual([]);
    await app.stop();
  });

  it('the bus: errors name the bus while it is gone, and the same server reconnects', async () => {
    const old = await session.launchFixture('toggles.py');
    expect((await session.call('ax_get_tree', { app: old.pid })).isError).toBe(false);
    for (const p of session.desktop.pids.filter((p) => /^a11y-dbus-daemon/.test(p.name))) {
      signal(p.pid, 'SIGKILL');
    }
    const down = await callUntil('ax_list_apps', {}, (r) => r.isError, 5);
    expect(down.isError, `ax_list_apps kept answering: ${down.text}`).toBe(true);
    expect(down.fields.error).toMatch(/accessibility bus is gone/);
    expect(down.fields.error).toMatch(/at-spi-bus-launcher|axpage desktop/);

    await session.desktop.restartAccessibility();
    // Apps connected to the old bus do not come back (toolkits do not reconnect); a new
    // one is reached by the same server.
    const fresh = await session.launchFixture('toggles.py');
    const r = await callUntil('ax_get_tree', { app: fresh.pid }, (x) => !x.isError, 10);
    expect(r.isError, r.text).toBe(false);
    const click = await session.call('ax_click', { app: fresh.pid, query: 'button:MS' });
    expect(click.isError, click.text).toBe(false);
    await fresh.output?.waitForEvent((e) => e.event === 'toggled' && e.widget === 'MS');
    // Only the click asked for, and nothing at all in the app on the dead bus.
    expect(inputEvents(fresh)).toHaveLength(1);
    expect(inputEvents(old)).toEqual([]);
    await fresh.stop();
    await old.stop();
  });
});
