/**
 * A secret typed or set into a password field, which the app echoes elsewhere at once (a
 * "you typed" preview, a strength meter, a status line, its window title) or prints to its
 * output (a debug build): the very call that typed it must show none of it, in its result,
 * its tree file or its PNG; nor may a later read reuse that walk, a later diff show it as
 * the old value, a tree file's header lines repeat it from the agent's own query, or the
 * log of a launched app's output keep it. Oracles: the fixture's own events (what the app
 * got and where it drew the echo), every file in the artifact dir (trees, logs, launch
 * logs), and the PNG's pixels read back by sharp where the echo is drawn.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureApp, Session, type CallResult } from '../../src/harness/session.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { sessionPerSuite } from './helpers/suite-session.js';
import { coloursIn, decodePng } from './helpers/pixels.js';

/** The forms an app may print or show it in that the masking promises to catch. */
function formsOf(secret: string): string[] {
  return [secret, [...secret].reverse().join('')];
}

/** Every file the server wrote that holds one of `needles` (PNGs are checked by pixel). */
function filesHolding(dir: string, needles: string[]): string[] {
  const out: string[] = [];
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, name);
    if (!fs.statSync(file).isFile()) continue;
    const body = fs.readFileSync(file);
    for (const n of needles) if (body.includes(n)) out.push(`${name}: ${n}`);
  }
  return out;
}

/** The screen point a PNG starts at, from its tree file's capture header. */
function originOf(png: string): { x: number; y: number } {
  const text = fs.readFileSync(png.replace(/\.png$/, '.txt'), 'utf8');
  const m = /# capture: (-?\d+),(-?\d+)/.exec(text);
  return m ? { x: Number(m[1]), y: Number(m[2]) } : { x: 0, y: 0 };
}

function expectClean(r: CallResult, secret: string): void {
  for (const form of formsOf(secret)) {
    expect(r.text).not.toContain(form);
    expect(JSON.stringify(r.structured)).not.toContain(form);
  }
}

/** The status line where the app echoes the text: one flat colour in the call's PNG. */
async function expectEchoFilled(r: CallResult, status: number[]): Promise<void> {
  const png = String(r.fields.screenshot);
  const [x, y, w, h] = status;
  const img = await decodePng(png);
  expect(coloursIn(img, originOf(png), { x: x + 1, y: y + 1, w: w - 2, h: h - 2 })).toBe(1);
}

/** The app got all of `secret` (its own word); where it draws the echo. */
async function echoed(app: LaunchedApp, secret: string, from: number): Promise<number[]> {
  const got = await app.output!.waitForEvent(
    (e) => e.event === 'changed' && e.length === secret.length,
    { timeoutMs: 20_000, from },
  );
  return got.status as number[];
}

type Typing = (session: Session, app: LaunchedApp, secret: string) => Promise<CallResult>;

const typings: Array<[string, Typing]> = [
  [
    'ax_type in the background',
    (s, app, secret) => s.call('ax_type', { app: app.pid, query: 'Search', text: secret }),
  ],
  [
    'ax_type in the foreground',
    (s, app, secret) =>
      s.call('ax_type', {
        app: app.pid,
        query: 'Search',
        text: secret,
        delivery_mode: 'foreground',
      }),
  ],
  [
    'ax_type with a Tab after (the focus leaves the field)',
    (s, app, secret) =>
      s.call('ax_type', { app: app.pid, query: 'Search', text: secret, key: 'Tab' }),
  ],
  [
    'ax_set_value',
    (s, app, secret) => s.call('ax_set_value', { app: app.pid, query: 'Search', value: secret }),
  ],
  [
    'an ax_workflow step',
    (s, app, secret) =>
      s.call('ax_workflow', {
        steps: [{ tool: 'ax_type', args: { app: app.pid, query: 'Search', text: secret } }],
      }),
  ],
];

/** Types `secret` by `typing`, then reads and diffs the app: nothing of it anywhere. */
async function typeAndRead(session: Session, typing: Typing, secret: string): Promise<void> {
  const app = await session.launchFixture('echo_search.py', [], {
    env: { AXPAGE_FIXTURE_PASSWORD: '1' },
  });
  const from = app.output!.events.length;
  const typed = await typing(session, app, secret);
  expect(typed.isError, typed.text).toBe(false);
  const status = await echoed(app, secret, from);
  expectClean(typed, secret);
  // The workflow's own pair lists its steps; the step's pair is the one with the capture.
  const steps = typed.structured.steps as Array<{ pair?: string }> | undefined;
  const pair = steps
    ? path.join(session.artifactDir, `${steps[0].pair}.png`)
    : String(typed.fields.screenshot);
  await expectEchoFilled({ ...typed, fields: { ...typed.fields, screenshot: pair } }, status);
  // Reads that may reuse the call's walk, and a change whose diff has the echo as old value.
  for (const [tool, args] of [
    ['ax_get_value', { app: app.pid, query: 'id:status' }],
    ['ax_screenshot', { app: app.pid }],
    ['ax_key_press', { app: app.pid, query: 'Search', key: 'BackSpace' }],
    ['ax_get_tree', { app: app.pid }],
  ] as const) {
    const r = await session.call(tool, args);
    expect(r.isError, r.text).toBe(false);
    expectClean(r, secret);
  }
  expect(filesHolding(session.artifactDir, formsOf(secret))).toEqual([]);
  await app.stop();
}

describe('full mode: the call that types a secret into a password field', () => {
  const get = sessionPerSuite();

  // Secrets with no run of letters in common: each call is the first to know its own.
  const secrets = [
    'Orchid-Lantern-4207',
    'Pebble-Zephyr-8642',
    'Basalt-Meadow-5318',
    'Quiver-Tundra-6429',
    'Falcon-Ember-7530',
  ];
  it.each(typings.map(([name, typing], i) => [name, typing, secrets[i]] as const))(
    '%s shows none of the echo in its result, file or PNG, nor do later reads and diffs',
    async (_name, typing, secret) => {
      await typeAndRead(get(), typing, secret);
    },
  );
});

describe('safe mode with secure typing allowed: the call that types a secret', () => {
  const get = sessionPerSuite({
    serverEnv: { AXPAGE_MODE: 'safe', AXPAGE_ALLOW_SECURE_TYPING: '1' },
  });

  it('shows none of the echo in its result, file or PNG', async () => {
    await typeAndRead(get(), typings[0][1], 'SafeSecret-5150');
  });
});

describe('the query lines of tree files', () => {
  const get = sessionPerSuite();
  const SECRET = 'QuerySecret-3141';

  it('keep no known secret the agent names in its own query', async () => {
    const session = get();
    const app = await session.launchFixture('echo_search.py', [], {
      env: { AXPAGE_FIXTURE_PASSWORD: '1' },
    });
    const typed = await session.call('ax_type', { app: app.pid, query: 'Search', text: SECRET });
    expect(typed.isError, typed.text).toBe(false);
    for (const [tool, args] of [
      ['ax_find', { app: app.pid, query: `*${SECRET}*` }],
      ['ax_wait_for', { app: app.pid, query: `*${SECRET}*`, timeout_ms: 200 }],
      [
        'ax_workflow',
        { steps: [{ tool: 'ax_find', args: { app: app.pid, query: `nonexist-${SECRET}` } }] },
      ],
    ] as const) {
      const r = await session.call(tool, args);
      expectClean(r, SECRET);
    }
    expect(filesHolding(session.artifactDir, formsOf(SECRET))).toEqual([]);
    await app.stop();
  });
});

/** Launches the echoing app through the server; its pid and the log of its output. */
async function launchPrinter(session: Session): Promise<{ app: number; log: string }> {
  const launch = await session.call('ax_launch_app', {
    command: ['/usr/bin/python3', fixtureApp('echo_search.py')],
  });
  expect(launch.isError, launch.text).toBe(false);
  const launched = launch.structured.launched as { app_pid: number; log: string };
  return { app: launched.app_pid, log: launched.log };
}

/** Types `secret` into the app's password field and has it print it; its log then. */
async function typeAndPrint(session: Session, app: number, log: string, secret: string) {
  const typed = await session.call('ax_type', {
    app,
    query: 'Search',
    text: secret,
    key: 'Return',
  });
  expect(typed.isError, typed.text).toBe(false);
  expectClean(typed, secret);
  await printed(log, 1);
}

/** The log once the app's `n`th printed event is in it (after the lines it printed). */
async function printed(log: string, n: number): Promise<string> {
  let text = '';
  await expect
    .poll(
      () => {
        text = fs.readFileSync(log, 'utf8');
        return text.match(/"event": "printed"/g)?.length ?? 0;
      },
      { timeout: 20_000, interval: 100 },
    )
    .toBeGreaterThanOrEqual(n);
  return text;
}

const PRINTING = { AXPAGE_FIXTURE_PASSWORD: '1', AXPAGE_FIXTURE_PRINTS: '1' };

describe("a launched app's output log", () => {
  const get = sessionPerSuite({ serverEnv: PRINTING });
  const SECRET = 'TypedSecret-9981';

  it('keeps no known secret the app prints, in any form looked for', async () => {
    const session = get();
    const { app, log } = await launchPrinter(session);
    await typeAndPrint(session, app, log, SECRET);
    const text = fs.readFileSync(log, 'utf8');
    expect(text).toMatch(/DEBUG search=•••/);
    expect(text).toMatch(/DEBUG reversed=•••/);
    // A program that prints it and exits at once: its error quotes the log's tail, masked.
    const echo = await session.call('ax_launch_app', { command: ['/bin/echo', SECRET] });
    expect(echo.isError).toBe(true);
    expectClean(echo, SECRET);
    expect(echo.text).toMatch(/Its output ends:(\\n|\n)•••/);
    expect(filesHolding(session.artifactDir, formsOf(SECRET))).toEqual([]);
    const quit = await session.call('ax_quit_app', { app });
    expect(quit.isError, quit.text).toBe(false);
  });
});

describe('a launched app that outlives the server', () => {
  const SECRET = 'LateSecret-2718';

  it('runs on, and its log stays masked', async () => {
    const session = await Session.start({ serverEnv: PRINTING });
    let app: number | undefined;
    try {
      const launched = await launchPrinter(session);
      app = launched.app;
      await typeAndPrint(session, app, launched.log, SECRET);
      // The client goes, and the server with it; the app prints again after.
      await session.client.close();
      process.kill(app, 'SIGUSR2');
      const text = await printed(launched.log, 2);
      expect(text.match(/DEBUG search=•••/g)?.length).toBe(2);
      expect(text.match(/DEBUG reversed=•••/g)?.length).toBe(2);
      expect(() => process.kill(app!, 0)).not.toThrow();
      expect(filesHolding(session.artifactDir, formsOf(SECRET))).toEqual([]);
    } finally {
      if (app !== undefined) process.kill(app, 'SIGTERM');
      await session.close();
    }
  });
});
