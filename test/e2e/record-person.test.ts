/**
 * Recording what a person does (axpage://recording/start, /stop) and replaying it. The
 * person is a separate process sending real input through the X server (XTest, from
 * helpers/person.py), never axpage's own calls; what the app did is read from the app
 * itself (the fixture's JSON events, mousepad's text through pyatspi). The recorded steps
 * must be valid ax_workflow input, and replayed by ax_workflow on a fresh server and a
 * fresh app they must do the same; the password typed during the recording is in no file
 * and in no answer.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { packageRoot, Session } from '../../src/harness/session.js';
import type { SwaySession } from '../../src/desktop/sway.js';
import { planWorkflow } from '../../src/tools/workflow-plan.js';
import { MAX_STEPS, STEP_TOOLS, workflow } from '../../src/tools/workflow.js';
import { describeNeeding, file, program, pythonModule } from './helpers/needs.js';
import { waitForApp } from './helpers/oracle.js';

const run = promisify(execFile);
const PERSON = path.join(import.meta.dirname, 'helpers', 'person.py');
const SECRET = 'pw-Rec0rded-7731';
const NAME = 'Ada Lovelace';

interface Recording {
  app: string;
  inputs: string;
  note?: string;
  ended: string;
  steps: Array<{ id: string; tool: string; args: Record<string, unknown> }>;
  secrets: Array<{ step: string; field: string; placeholder: string }>;
  pairs: Record<string, string>;
}

type Rect = [number, number, number, number];

function textOf(result: { contents: object[] }): string {
  return String((result.contents[0] as { text?: string } | undefined)?.text ?? '');
}

async function read<T>(session: { client: Session['client'] }, uri: string): Promise<T> {
  return JSON.parse(textOf(await session.client.readResource({ uri }))) as T;
}

/** The person: one command of helpers/person.py on the session's display. */
async function person(session: Session, ...args: string[]): Promise<void> {
  await run('/usr/bin/python3', [PERSON, ...args], {
    env: session.desktop.processEnv() as Record<string, string>,
    timeout: 60_000,
  });
}

async function clickAt(session: Session, r: Rect): Promise<void> {
  await person(
    session,
    'click',
    String(r[0] + Math.floor(r[2] / 2)),
    String(r[1] + Math.floor(r[3] / 2)),
  );
}

/** Every file under dir whose bytes contain `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  const hits: string[] = [];
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if (fs.readFileSync(file).includes(needle)) hits.push(file);
  }
  return hits;
}

function validWorkflow(steps: Recording['steps']): void {
  expect(workflow.input.safeParse({ steps }).success).toBe(true);
  // Every step's tool and arguments, as ax_workflow checks them before running any.
  expect(() => planWorkflow(steps, STEP_TOOLS, MAX_STEPS)).not.toThrow();
}

describe('recording a person on a fixture app', () => {
  let session: Session;
  let app: LaunchedApp;
  let recording: Recording;

  beforeAll(async () => {
    session = await Session.start();
    app = await session.launchFixture('record_task.py');
  }, 90_000);

  afterAll(async () => {
    await session?.close();
  });

  it('turns clicks, typing, a password and a dialog into ax_workflow steps', async () => {
    const ready = await app.output!.waitForEvent((e) => e.event === 'ready');
    const rects = ready.rects as Record<string, Rect>;
    await expect(session.client.readResource({ uri: 'axpage://recording/stop' })).rejects.toThrow(
      /no recording is running/,
    );
    const started = await read<{ recording: boolean; app: string }>(
      session,
      `axpage://recording/start?app=${app.pid}`,
    );
    expect(started.recording).toBe(true);
    // One recording at a time.
    await expect(session.client.readResource({ uri: 'axpage://recording/start' })).rejects.toThrow(
      /already running/,
    );

    const events = app.output!;
    await clickAt(session, rects.remember);
    await events.waitForEvent((e) => e.event === 'toggled' && e.active === true);
    await clickAt(session, rects.name);
    await person(session, 'type', NAME);
    await events.waitForEvent((e) => e.event === 'changed' && e.value === NAME);
    await clickAt(session, rects.password);
    await person(session, 'type', SECRET);
    await events.waitForEvent(
      (e) => e.event === 'changed' && e.widget === 'password' && e.length === SECRET.length,
    );
    await clickAt(session, rects.open);
    const opened = await events.waitForEvent((e) => e.event === 'dialog' && e.state === 'opened', {
      timeoutMs: 15_000,
    });
    await clickAt(session, opened.close as Rect);
    await events.waitForEvent((e) => e.event === 'dialog' && e.state === 'closed', {
      timeoutMs: 15_000,
    });

    const text = textOf(await session.client.readResource({ uri: 'axpage://recording/stop' }));
    recording = JSON.parse(text) as Recording;
    expect(text).not.toContain(SECRET);
    validWorkflow(recording.steps);
    // X shows every client's input: the clicks came from the person's own presses.
    expect(recording.inputs).toBe('accessibility and input events');
    const brief = recording.steps.map((s) => [s.tool, s.args.query, s.args.text, s.args.state]);
    expect(brief).toEqual([
      ['ax_click', "AXCheckBox:'Remember me'", undefined, undefined],
      ['ax_type', "AXTextField:'Name'", NAME, undefined],
      [
        'ax_type',
        expect.stringMatching(/:'Password'$/),
        recording.secrets[0]?.placeholder,
        undefined,
      ],
      ['ax_click', "AXButton:'Open Details'", undefined, undefined],
      ['ax_wait_for', expect.stringContaining("'Details'"), undefined, undefined],
      ['ax_click', "AXButton:'Close'", undefined, undefined],
      ['ax_wait_for', expect.stringContaining("'Details'"), undefined, 'disappear'],
    ]);
    expect(recording.secrets).toEqual([
      { step: 's3', field: 'Password', placeholder: expect.stringContaining('Password') },
    ]);
    // A pair (tree file + PNG) per step, in the artifact dir, and the walks in the session log.
    for (const step of recording.steps) {
      const pair = recording.pairs[step.id];
      expect(pair, step.id).toBeDefined();
      expect(fs.existsSync(path.join(session.artifactDir, pair))).toBe(true);
      expect(fs.existsSync(path.join(session.artifactDir, pair.replace(/\.txt$/, '.png')))).toBe(
        true,
      );
    }
    expect(fs.readdirSync(session.artifactDir).some((f) => /^session-.*\.jsonl$/.test(f))).toBe(
      true,
    );
    expect(filesHolding(session.artifactDir, SECRET)).toEqual([]);
  }, 240_000);

  it('replays on a fresh server and a fresh app to the same effect', async () => {
    expect(recording).toBeDefined();
    await session.close();
    session = await Session.start();
    const fresh = await session.launchFixture('record_task.py');
    const steps = recording.steps.map((s) =>
      recording.secrets.some((x) => x.step === s.id)
        ? { ...s, args: { ...s.args, text: SECRET } }
        : s,
    );
    const result = await session.call('ax_workflow', { steps });
    expect(result.isError, result.text).toBe(false);
    const events = fresh.output!;
    await events.waitForEvent((e) => e.event === 'toggled' && e.active === true);
    await events.waitForEvent((e) => e.event === 'changed' && e.value === NAME);
    await events.waitForEvent(
      (e) => e.event === 'changed' && e.widget === 'password' && e.length === SECRET.length,
    );
    await events.waitForEvent((e) => e.event === 'clicked' && e.widget === 'open');
    await events.waitForEvent((e) => e.event === 'clicked' && e.widget === 'close');
    await events.waitForEvent((e) => e.event === 'dialog' && e.state === 'closed');
    expect(filesHolding(session.artifactDir, SECRET)).toEqual([]);
  }, 240_000);
});

/** `axpage record` as a person runs it in a terminal, with its output collected. */
function recordCli(session: Session, args: string[], outDir: string) {
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(packageRoot(), 'dist', 'cli.js'), 'record', ...args],
    { env: session.desktop.processEnv({ AXPAGE_OUT: outDir }) as Record<string, string> },
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const started = new Promise<void>((resolve, reject) => {
    const check = (): void => {
      if (/recording .*Ctrl\+C stops/.test(stderr)) resolve();
    };
    child.stderr!.on('data', check);
    void exited.then(() => reject(new Error(`axpage record exited before recording: ${stderr}`)));
  });
  return { child, started, exited, out: () => ({ stdout, stderr }) };
}

function padText(session: Session, pid: number, want: string): Promise<true> {
  return waitForApp(
    session,
    pid,
    (els) => (els.some((e) => e.role === 'text' && e.text === want) ? true : undefined),
    `mousepad showing ${JSON.stringify(want)}`,
  );
}

describe('axpage record on mousepad', () => {
  let session: Session;
  let steps: Recording['steps'];
  const TEXT = 'hello recorder';

  function launchPad(s: Session): Promise<LaunchedApp> {
    const home = fs.mkdtempSync(path.join(s.artifactDir, 'home-'));
    return s.launch('mousepad', ['--disable-server'], {
      env: {
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, 'config'),
        XDG_DATA_HOME: path.join(home, 'data'),
      },
    });
  }

  afterAll(async () => {
    await session?.close();
  });

  it('records the keys a person presses until Ctrl+C and prints ax_workflow steps', async () => {
    session = await Session.start();
    const pad = await launchPad(session);
    const outDir = fs.mkdtempSync(path.join(session.artifactDir, 'rec-'));
    const outFile = path.join(outDir, 'recording.json');
    const cli = recordCli(session, ['--app', String(pad.pid), '--out', outFile], outDir);
    await cli.started;
    await person(session, 'type', TEXT);
    await person(session, 'key', 'Return');
    await person(session, 'type', 'line 2');
    await padText(session, pad.pid, `${TEXT}\nline 2`);
    cli.child.kill('SIGINT');
    expect(await cli.exited, cli.out().stderr).toBe(0);
    steps = (JSON.parse(cli.out().stdout) as { steps: Recording['steps'] }).steps;
    validWorkflow(steps);
    expect(steps.filter((s) => s.tool === 'ax_type').map((s) => s.args.text)).toEqual([
      `${TEXT}\nline 2`,
    ]);
    expect(fs.statSync(outFile).mode & 0o777).toBe(0o600);
    const whole = JSON.parse(fs.readFileSync(outFile, 'utf8')) as Recording;
    expect(whole.steps).toEqual(steps);
    // Its walks are a run like any: pairs and a session log in the artifact dir.
    expect(fs.readdirSync(outDir).some((f) => /^session-.*\.jsonl$/.test(f))).toBe(true);
    expect(
      fs.readdirSync(outDir).filter((f) => f.endsWith('_get_tree.png')).length,
    ).toBeGreaterThan(0);
  }, 240_000);

  it('replays on a fresh server and a fresh mousepad to the same text', async () => {
    expect(steps).toBeDefined();
    await session.close();
    session = await Session.start();
    const pad = await launchPad(session);
    const result = await session.call('ax_workflow', { steps });
    expect(result.isError, result.text).toBe(false);
    await padText(session, pad.pid, `${TEXT}\nline 2`);
  }, 240_000);

  it('leaves out the keys a person presses in another app that is in front', async () => {
    const task = await session.launchFixture('record_task.py');
    const pad = await launchPad(session);
    await waitForApp(
      session,
      pad.pid,
      (els) => (els.some((e) => e.role === 'text') ? true : undefined),
      'mousepad up',
    );
    await read(session, `axpage://recording/start?app=${task.pid}`);
    await person(session, 'type', 'elsewhere');
    await person(session, 'key', 'Return');
    await padText(session, pad.pid, 'elsewhere\n');
    const recording = await read<Recording>(session, 'axpage://recording/stop');
    expect(recording.steps).toEqual([]);
    expect(recording.note).toMatch(/while another app was in front are left out/);
  }, 120_000);

  it('stops by itself at --limit-seconds and says so', async () => {
    const outDir = fs.mkdtempSync(path.join(session.artifactDir, 'rec-'));
    const pad = await launchPad(session);
    const cli = recordCli(session, ['--app', String(pad.pid), '--limit-seconds', '2'], outDir);
    await cli.started;
    expect(await cli.exited, cli.out().stderr).toBe(0);
    expect(cli.out().stderr).toMatch(/ended by itself at its limit of 2 s/);
    expect(JSON.parse(cli.out().stdout)).toEqual({ steps: [] });
  }, 120_000);
});

describeNeeding(
  [
    program('sway', 'sway'),
    program('dbus-daemon', 'dbus'),
    file('/usr/libexec/at-spi-bus-launcher', 'at-spi2-core'),
    pythonModule('gi', 'python3-gi'),
  ],
  'recording under sway, which hides input events',
  () => {
    let session: Session<SwaySession>;

    afterAll(async () => {
      await session?.close();
    });

    it('infers the steps from accessibility events alone, and says so', async () => {
      session = await Session.startSway();
      const app = await session.launchFixture('record_task.py');
      const started = await read<{ inputs: string }>(
        session,
        `axpage://recording/start?app=${app.pid}`,
      );
      expect(started.inputs).toBe('accessibility events only');
      // sway passes no client another's input, so no person can be scripted here: the
      // check box is set through axpage, and the app announces it as any change of state.
      const r = await session.call('ax_click', { app: app.pid, query: "AXCheckBox:'Remember me'" });
      expect(r.isError, r.text).toBe(false);
      await app.output!.waitForEvent((e) => e.event === 'toggled' && e.active === true);
      const recording = await read<Recording>(session, 'axpage://recording/stop');
      expect(recording.inputs).toBe('accessibility events only');
      expect(recording.note).toMatch(/hides input events.*inferred from accessibility events/);
      validWorkflow(recording.steps);
      expect(recording.steps.map((s) => [s.tool, s.args.query])).toEqual([
        ['ax_click', "AXCheckBox:'Remember me'"],
      ]);
    }, 180_000);
  },
);
