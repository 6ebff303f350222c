/**
 * A frozen app costs other calls nothing. Beside a responsive app, one app is frozen two
 * ways: stopped (SIGSTOP: /proc says so, and it must be asked nothing) and stuck in a busy
 * main loop (stall.py: the process runs but answers nothing, so only a short liveness
 * probe may go to it). Calls on the responsive app and ax_list_apps must succeed with
 * the right content, the frozen app must be reported as not answering from the first call
 * after the freeze on, and calls aimed at it must fail with app_not_responding and what
 * to do. What reached the frozen app is counted on the accessibility bus itself
 * (dbus-monitor), not timed: how long the calls take is the bench's business.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import dbus from 'dbus-next';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { fixtureApp, Session, type CallResult } from '../../src/harness/session.js';
import { AtspiBus } from '../../src/platform/linux/atspi/bus.js';
import { LinuxDesktop } from '../../src/platform/linux/index.js';
import { stoppedProcess } from '../../src/platform/linux/proc.js';
import { continueAll, signal } from './helpers/signals.js';

let session: Session;
let bus: AtspiBus;
let other: LaunchedApp;

beforeAll(async () => {
  session = await Session.start();
  bus = await AtspiBus.connect(a11yAddress());
  other = await session.launchFixture('form.py');
});

afterAll(async () => {
  // A test that failed half way must not leave a stopped process behind.
  continueAll();
  bus?.disconnect();
  await session?.close();
});

function a11yAddress(): string {
  const address = session.desktop.processEnv().AT_SPI_BUS_ADDRESS;
  if (!address) throw new Error('the headless desktop has no AT_SPI_BUS_ADDRESS');
  return address;
}

/** SIGSTOP, and wait until the process has stopped: the signal is delivered asynchronously. */
async function stop(pid: number): Promise<void> {
  signal(pid, 'SIGSTOP');
  while (!stoppedProcess(pid)) await new Promise((r) => setTimeout(r, 5));
}

/** The app's unique name on the accessibility bus, once it has registered. */
async function busNameOf(pid: number): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const hit = (await bus.registeredApps()).find((a) => a.pid === pid);
    if (hit) return hit.bus;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`pid ${pid} never registered with the accessibility registry`);
}

/** The ax_list_apps line of this pid, or undefined. */
function listLine(r: CallResult, pid: number): string | undefined {
  const file = fs.readFileSync(r.fields.file, 'utf8');
  return file.split('\n').find((l) => l.startsWith(`pid:${pid} `));
}

function treeFile(r: CallResult): string {
  return fs.readFileSync(r.fields.file, 'utf8');
}

/** One method call sent to the watched app, as dbus-monitor printed it. */
interface SeenCall {
  member: string;
  /** The call's string arguments (a property Get names its interface and property). */
  strings: string[];
}

const MARK = 'AxpageTestMark';

/**
 * Every method call the bus routes to `names`, seen by dbus-monitor. Marks (calls of a
 * member no app has, sent from here) bracket a stretch, so a count never depends on how
 * soon the monitor prints.
 */
class CallWatch {
  private readonly proc: ChildProcess;
  private readonly sender: dbus.MessageBus;
  private readonly seen: Array<SeenCall & { destination: string }> = [];
  private text = '';
  private marks = 0;
  private failed = '';

  constructor(private readonly names: string[]) {
    const rules = names.map((n) => `type='method_call',destination='${n}'`);
    this.proc = spawn('dbus-monitor', ['--address', a11yAddress(), ...rules], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    this.proc.on('error', (err) => {
      this.failed = `dbus-monitor could not run (${err.message}): install dbus-bin`;
    });
    this.proc.stdout!.setEncoding('utf8');
    this.proc.stdout!.on('data', (chunk: string) => this.parse(chunk));
    this.sender = dbus.sessionBus({ busAddress: a11yAddress() });
    this.sender.on('error', () => undefined);
  }

  private parse(chunk: string): void {
    // Line by line: a header line opens a message, its indented lines are its arguments.
    const lines = (this.text + chunk).split('\n');
    this.text = lines.pop() ?? '';
    for (const line of lines) {
      const head = /^method call .*destination=(\S+) .*member=(\S+)/.exec(line);
      if (head) this.seen.push({ destination: head[1], member: head[2], strings: [] });
      else if (/^\S/.test(line)) this.seen.push({ destination: '', member: '', strings: [] });
      const arg = /^\s+string "(.*)"$/.exec(line);
      if (arg) this.seen[this.seen.length - 1]?.strings.push(arg[1]);
    }
  }

  /**
   * Sends a mark to each watched app and waits until the monitor printed it: the calls
   * seen before it are every call sent before this. Returns the number of calls seen.
   */
  async mark(): Promise<number> {
    // dbus-monitor may not be listening yet when the first mark goes: send another then.
    for (let attempt = 0; attempt < 20; attempt++) {
      const id = `${MARK}${this.marks++}`;
      for (const destination of this.names) {
        this.sender.send(
          new dbus.Message({
            destination,
            path: '/',
            interface: 'org.axpage.Test',
            member: id,
            flags: dbus.MessageFlag.NO_REPLY_EXPECTED,
          }),
        );
      }
      for (let i = 0; i < 20; i++) {
        if (this.failed) throw new Error(this.failed);
        const at = this.seen.findIndex((c) => c.member === id);
        if (at >= 0 && this.seen.filter((c) => c.member === id).length === this.names.length) {
          return at;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    throw new Error('dbus-monitor never showed a mark');
  }

  /** The calls (marks left out) between two mark() results, to one name. */
  between(from: number, to: number, destination: string): SeenCall[] {
    return this.seen
      .slice(from, to)
      .filter((c) => c.destination === destination && !c.member.startsWith(MARK))
      .map(({ member, strings }) => ({ member, strings }));
  }

  stop(): void {
    this.proc.kill();
    this.sender.disconnect();
  }
}

describe('an app stopped (SIGSTOP) beside a responsive one', () => {
  it('is asked nothing, reported not answering, refused fast; the other app and the list work', async () => {
    const frozen = await session.launchFixture('toggles.py');
    // Stopped before this server ever read it: nothing of it is remembered.
    const unseen = await session.launchFixture('toggles.py', ['--prgname', 'unseen']);
    expect((await session.call('ax_get_tree', { app: frozen.pid })).isError).toBe(false);
    expect((await session.call('ax_get_tree', { app: other.pid })).isError).toBe(false);
    expect((await session.call('ax_list_apps', {})).isError).toBe(false);
    const names = [await busNameOf(frozen.pid), await busNameOf(unseen.pid)];
    const watch = new CallWatch(names);
    try {
      const start = await watch.mark();
      await stop(frozen.pid);
      await stop(unseen.pid);

      // The first call after the freeze already knows.
      const listed = await session.call('ax_list_apps', {});
      expect(listed.isError, listed.text).toBe(false);
      for (const pid of [frozen.pid, unseen.pid]) {
        expect(listLine(listed, pid)).toMatch(/ not responding$/);
        expect(listed.fields.summary).toContain(`pid ${pid} not answering`);
      }
      expect(listLine(listed, frozen.pid)).toMatch(/"toggles.py" windows:1/); // its last answer
      // Its capture's password-field lookup did not wait for it either.
      for (const pid of [frozen.pid, unseen.pid]) {
        expect(fs.readFileSync(listed.fields.file, 'utf8')).toMatch(
          new RegExp(`# note: .*filled whole.*\\(.*pid ${pid}: its process is stopped`),
        );
      }
      expect(listLine(listed, other.pid)).toMatch(/"form.py" windows:1/);
      expect(listLine(listed, other.pid)).not.toMatch(/not responding/);

      const tree = await session.call('ax_get_tree', { app: other.pid });
      expect(tree.isError, tree.text).toBe(false);
      expect(treeFile(tree)).toMatch(/\[AXButton \(push button\)\] "Submit"/);
      const click = await session.call('ax_click', { app: 'form', query: 'button:Submit' });
      expect(click.isError, click.text).toBe(false);
      await other.output?.waitForEvent((e) => e.event === 'clicked' && e.widget === 'submit');

      for (const args of [
        { app: frozen.pid },
        { app: 'Fixture Toggles' },
        { app: unseen.pid },
        { app: 'unseen' },
      ]) {
        const r = await session.call('ax_get_tree', args);
        expect(r.isError, JSON.stringify(args)).toBe(true);
        expect(r.structured.error_code).toBe('app_not_responding');
        expect(r.fields.error).toMatch(/is not responding: its process is stopped.*kill -CONT/);
      }
      const refused = await session.call('ax_click', { app: frozen.pid, query: 'button:MS' });
      expect(refused.structured.error_code).toBe('app_not_responding');

      // The backend method other features ask before a lookup that could hang.
      const backend = await LinuxDesktop.open(session.desktop.processEnv());
      try {
        const answering = await backend.appsAnswering([frozen.pid, unseen.pid, other.pid, 1]);
        expect(answering).toEqual(
          new Map([
            [frozen.pid, false],
            [unseen.pid, false],
            [other.pid, true],
          ]),
        );
      } finally {
        await backend.close();
      }
      // The registry's list with names (a capture without X reads it): stopped apps are in
      // it, unnamed, and asked nothing (the count below covers this process's calls too).
      const registered = await bus.registeredApps();
      for (const pid of [frozen.pid, unseen.pid]) {
        expect(registered.find((a) => a.pid === pid)).toMatchObject({ pid, name: '' });
      }

      // Nothing at all was sent to the stopped apps: no call could wait for them.
      const end = await watch.mark();
      for (const name of names) expect(watch.between(start, end, name)).toEqual([]);
    } finally {
      watch.stop();
      signal(frozen.pid, 'SIGCONT');
      signal(unseen.pid, 'SIGCONT');
    }

    // Continued: answered again at once, and the refused click was never delivered.
    const back = await session.call('ax_get_tree', { app: frozen.pid });
    expect(back.isError, back.text).toBe(false);
    expect(listLine(await session.call('ax_list_apps', {}), unseen.pid)).not.toMatch(
      /not responding/,
    );
    expect((frozen.output?.events ?? []).filter((e) => e.event === 'toggled')).toEqual([]);
    await frozen.stop();
    await unseen.stop();
  });
});

describe('an app stuck in a busy main loop beside a responsive one', () => {
  it('gets liveness probes only, is reported not answering, refused; the other app and the list work', async () => {
    const stuck = await session.launchFixture('stall.py');
    expect((await session.call('ax_get_tree', { app: stuck.pid })).isError).toBe(false);
    expect((await session.call('ax_list_apps', {})).isError).toBe(false);
    const name = await busNameOf(stuck.pid);
    const watch = new CallWatch([name]);
    try {
      const start = await watch.mark();
      signal(stuck.pid, 'SIGUSR1');
      await stuck.output!.waitForEvent((e) => e.event === 'stalled');

      // The first call after the stall: listed (from its last answer) as not answering.
      const listed = await session.call('ax_list_apps', {});
      expect(listed.isError, listed.text).toBe(false);
      expect(listLine(listed, stuck.pid)).toMatch(/"stall.py" windows:1 not responding$/);
      expect(listed.fields.summary).toContain(`pid ${stuck.pid} not answering`);
      // Its capture's password-field lookup, after the listing, did not wait for it again.
      expect(fs.readFileSync(listed.fields.file, 'utf8')).toMatch(
        new RegExp(`# note: .*filled whole.*\\(.*pid ${stuck.pid}: it left calls unanswered`),
      );
      expect(listLine(listed, other.pid)).not.toMatch(/not responding/);

      const tree = await session.call('ax_get_tree', { app: other.pid });
      expect(tree.isError, tree.text).toBe(false);
      expect(treeFile(tree)).toMatch(/\[AXButton \(push button\)\] "Submit"/);

      const calls = [{ app: stuck.pid }, { app: 'Fixture Stall' }];
      for (const args of calls) {
        const r = await session.call('ax_get_tree', args);
        expect(r.isError, JSON.stringify(args)).toBe(true);
        expect(r.structured.error_code).toBe('app_not_responding');
        expect(r.fields.error).toMatch(/is not responding: .*busy or hung.*Wait and try again/);
      }

      // Only liveness probes reached it (one property read on its root), one at a time
      // (each lasts its deadline), so a few per call made at most, however loaded the
      // machine: nothing else queued behind its silence.
      const end = await watch.mark();
      const got = watch.between(start, end, name);
      const made = 2 + calls.length;
      expect(got.length).toBeGreaterThan(0);
      expect(got.length).toBeLessThanOrEqual(2 * made);
      for (const c of got) {
        expect(c).toEqual({ member: 'Get', strings: ['org.a11y.atspi.Accessible', 'ChildCount'] });
      }
    } finally {
      watch.stop();
      signal(stuck.pid, 'SIGUSR2');
    }
    await stuck.output!.waitForEvent((e) => e.event === 'released');
    // Back: the next calls on it succeed once it answers again.
    let back = await session.call('ax_get_tree', { app: stuck.pid });
    const backBy = Date.now() + 30_000; // a bound a busy machine stays inside
    while (back.isError && Date.now() < backBy) {
      await new Promise((r) => setTimeout(r, 250));
      back = await session.call('ax_get_tree', { app: stuck.pid });
    }
    expect(back.isError, back.text).toBe(false);
    await stuck.stop();
  });
});

describe('an app whose main loop is busy right after its window shows', () => {
  it('is launched once it answers, not reported ready while it cannot be read', async () => {
    const r = await session.call('ax_launch_app', {
      command: ['/usr/bin/python3', fixtureApp('stall.py'), '--stall-at-start-s', '2'],
    });
    const launched = r.structured.launched as { app_pid: number; log: string } | undefined;
    try {
      expect(r.isError, r.text).toBe(false);
      expect(r.fields.summary).toMatch(/^Launched stall\.py \(pid \d+\)/);
      expect(r.structured.error_code).toBeUndefined();
      // Its stdout went to the launch log: the stall was over before the launch said ready.
      const log = fs.readFileSync(launched!.log, 'utf8');
      expect(log).toMatch(/"event": "stalled"[\s\S]*"event": "released"/);
    } finally {
      if (launched) signal(launched.app_pid, 'SIGKILL');
    }
  });
});
