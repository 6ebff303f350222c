/**
 * Recording what a person does (axpage://recording/start, /stop) and replaying it. The
 * person is a separate process sending real input through the X server (XTest, from
 * helpers/person.py), never axpage's own calls; what the app did is read from the app
 * itself (the fixture's JSON events, mousepad's text through pyatspi). The recorded steps
 * must be valid ax_workflow input, and replayed by ax_workflow on a fresh server and a
 * fresh app they must do the same; the password typed during the recording is in no file
 * and in no answer.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session } from '../../src/harness/session.js';
import { planWorkflow } from '../../src/tools/workflow-plan.js';
import { MAX_STEPS, STEP_TOOLS, workflow } from '../../src/tools/workflow.js';
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

async function read<T>(session: Session, uri: string): Promise<T> {
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

void waitForApp;
