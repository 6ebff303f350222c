/**
 * Session recording and `axpage replay` on real apps (galculator, mousepad): the log on
 * disk has one line per call, typed text masked, pair basenames that exist, private
 * modes; a replay against the same state finds every step the same (and really presses
 * the keys: galculator's own display, read with pyatspi, shows it), and a replay against
 * a changed state says which step differs and exits non-zero. ax_session_info's counters
 * move by exactly the calls made.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { packageRoot, Session } from '../../src/harness/session.js';
import { startServeClient } from '../../src/harness/serve-client.js';
import type { CallRecord } from '../../src/pipeline/record.js';
import { waitForApp, type AtspiElement } from './helpers/oracle.js';

const run = promisify(execFile);

let session: Session;
let calc: LaunchedApp;
let pad: LaunchedApp;
let recorded: string;

const TYPED = 'hello from the recorder';

beforeAll(async () => {
  session = await Session.start();
  const home = path.join(session.artifactDir, 'home');
  calc = await session.launch('galculator', [], {
    env: { HOME: home, XDG_CONFIG_HOME: path.join(home, 'config') },
  });
  pad = await session.launch('mousepad', ['--disable-server'], {
    name: 'mousepad-record',
    env: {
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, 'config'),
      XDG_DATA_HOME: path.join(home, 'data'),
    },
  });
  recorded = path.join(fs.mkdtempSync(path.join(session.artifactDir, 'replay-')), 'log.jsonl');
});

afterAll(async () => {
  await session?.close();
});

function display(els: AtspiElement[]): string | undefined {
  return els.find((e) => e.role === 'text' && e.text !== undefined)?.text?.trim();
}

function waitForDisplay(want: string): Promise<true> {
  return waitForApp(
    session,
    calc.pid,
    (els) => (Number(display(els)) === Number(want) ? true : undefined),
    `the display showing ${want}`,
  );
}

function sessionLog(): string {
  const logs = fs.readdirSync(session.artifactDir).filter((f) => /^session-.*\.jsonl$/.test(f));
  expect(logs).toHaveLength(1);
  return path.join(session.artifactDir, logs[0]);
}

function readLog(file: string): CallRecord[] {
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as CallRecord);
}

/** `axpage replay` as a user runs it, in the session's desktop, with a dir of its own. */
async function replay(log: string): Promise<{ code: number; out: string }> {
  const out = fs.mkdtempSync(path.join(session.artifactDir, 'replay-out-'));
  try {
    const { stdout } = await run(
      process.execPath,
      [path.join(packageRoot(), 'dist', 'cli.js'), 'replay', log],
      {
        env: session.desktop.processEnv({ AXPAGE_OUT: out }) as Record<string, string>,
        timeout: 240_000,
      },
    );
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('session log', () => {
  it('records every call as one line: masked text, pairs on disk, private modes', async () => {
    const script: Array<[string, Record<string, unknown>]> = [
      ['ax_click', { app: calc.pid, query: 'AC' }],
      ['ax_click', { app: calc.pid, query: '7' }],
      ['ax_click', { app: calc.pid, query: '+' }],
      ['ax_click', { app: calc.pid, query: '8' }],
      ['ax_click', { app: calc.pid, query: '=' }],
      ['ax_click', { app: calc.pid, query: 'button:no-such-key-here' }],
      ['ax_type', { app: pad.pid, text: TYPED }],
      // Names the text area, whose label is now the typed text: the log must not keep it.
      ['ax_get_value', { app: pad.pid, query: 'AXTextArea' }],
    ];
    for (const [tool, args] of script) {
      const r = await session.call(tool, args);
      expect(r.isError, r.text).toBe(args.query === 'button:no-such-key-here');
    }
    await waitForDisplay('15');

    const file = sessionLog();
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain(TYPED);
    const lines = readLog(file);
    expect(lines.map((l) => l.seq)).toEqual(script.map((_, i) => i + 1));
    expect(lines.map((l) => l.tool)).toEqual(script.map(([t]) => t));
    expect(lines.map((l) => l.outcome)).toEqual(
      script.map((_, i) => (i === 5 ? 'error' : 'success')),
    );
    expect(lines[5].error_code).toBe('no_match');
    expect(lines[6].args.text).toEqual({ masked: 'text', length: TYPED.length });
    expect(lines[1]).toMatchObject({ app: 'galculator', pid: calc.pid });
    expect(lines[1].target?.text).toBe('7');
    for (const l of lines) {
      expect(l.summary_bytes).toBeGreaterThan(0);
      for (const name of [l.tree, l.png]) {
        if (name !== undefined)
          expect(fs.existsSync(path.join(session.artifactDir, name))).toBe(true);
      }
    }
    expect(lines.filter((l) => l.tree !== undefined).length).toBeGreaterThanOrEqual(5);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(session.artifactDir).mode & 0o777).toBe(0o700);
    // The audit log is the view of the same records for the calls that change an app.
    const audit = fs
      .readFileSync(path.join(session.artifactDir, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(audit.map((a) => a.tool)).toEqual(
      script.map(([t]) => t).filter((t) => t !== 'ax_get_value'),
    );
    expect(audit[5]).toMatchObject({ outcome: 'error', error_code: 'no_match' });
    expect(JSON.stringify(audit)).not.toContain(TYPED);
    fs.copyFileSync(file, recorded);
  });

  it('replays against the same state: every step the same but the typed one, which is not replayed', async () => {
    // Back to the state the recording started from.
    const reset = await session.call('ax_click', { app: calc.pid, query: 'AC' });
    expect(reset.isError, reset.text).toBe(false);
    await waitForDisplay('0');
    const { code, out } = await replay(recorded);
    expect(out).toMatch(/^#1 ax_click .*: same/m);
    expect(out).toMatch(/^#6 ax_click .*: same \(error\)/m);
    expect(out).toMatch(/^#7 ax_type .*: skipped: text \(23 chars\) was not recorded/m);
    expect(out).toMatch(/^#8 ax_get_value .*: same/m);
    expect(out).toMatch(/: 7 same, 0 differ, 1 skipped$/m);
    expect(code, out).toBe(0);
    // The replay pressed the keys again: the calculator's own display says so.
    await waitForDisplay('15');
  });

  it('replays against a changed state: says which step differs, exits non-zero', async () => {
    // The display shows 15 now, not 0: the first step (AC) clears something this time.
    const { code, out } = await replay(recorded);
    expect(out).toMatch(/^#1 ax_click .*: DIFFERS: changes .* -> .*/m);
    expect(out).toMatch(/: \d+ same, [1-9]\d* differ, 1 skipped$/m);
    expect(code, out).toBe(1);
  });
});

describe('--record-text', () => {
  it('keeps typed text so that a replay types it again', async () => {
    const out = fs.mkdtempSync(path.join(session.artifactDir, 'record-text-'));
    const server = await startServeClient({
      env: session.desktop.processEnv({
        AXPAGE_OUT: out,
        AXPAGE_RECORD_TEXT: '1',
      }) as Record<string, string>,
    });
    const text = ' again';
    try {
      const r = await server.call('ax_type', { app: pad.pid, text });
      expect(r.isError, r.text).toBe(false);
    } finally {
      await server.close();
    }
    const logs = fs.readdirSync(out).filter((f) => /^session-.*\.jsonl$/.test(f));
    const [line] = readLog(path.join(out, logs[0]));
    expect(line).toMatchObject({ tool: 'ax_type', text_kept: true, args: { text } });
    const { code, out: printed } = await replay(path.join(out, logs[0]));
    expect(printed).toMatch(/^#1 ax_type .*: same/m);
    expect(code, printed).toBe(0);
    // mousepad's own text (pyatspi): typed by the recording, then again by the replay.
    await waitForApp(
      session,
      pad.pid,
      (els) => els.find((e) => e.role === 'text' && e.text === `${TYPED}${text}${text}`),
      'the text typed twice',
    );
  });
});

describe('ax_session_info', () => {
  it('counts exactly the calls made, their errors and summary bytes', async () => {
    const first = await session.call('ax_session_info', {});
    expect(first.isError, first.text).toBe(false);
    const made = [
      await session.call('ax_connect', { app: calc.pid, alias: 'calc' }),
      await session.call('ax_get_value', { app: calc.pid, query: '7' }),
      await session.call('ax_click', { app: calc.pid, query: 'button:nothing-like-this' }),
      await session.call('ax_list_windows', { app: calc.pid }),
    ];
    const second = await session.call('ax_session_info', {});
    const a = first.structured as Record<string, number>;
    const b = second.structured as Record<string, number>;
    expect(b.calls - a.calls).toBe(made.length + 1);
    expect(b.errors - a.errors).toBe(made.filter((r) => r.isError).length);
    expect(b.summary_bytes - a.summary_bytes).toBe(
      [first, ...made].reduce((n, r) => n + Buffer.byteLength(r.text), 0),
    );
    // No action reached an app (the click found nothing): nothing new to undo.
    expect(typeof b.undo_entries).toBe('number');
    expect(b.undo_entries - a.undo_entries).toBe(0);
    // The log on disk agrees: one line per call, the second info's own included.
    expect(readLog(sessionLog())).toHaveLength(b.calls + 1);
    const info = second.structured as {
      apps: Array<{ pid: number; name: string; alias?: string }>;
      recent_files: string[];
      settings: Record<string, unknown>;
      session_log: string;
    };
    expect(info.apps.map((x) => x.pid)).toEqual(expect.arrayContaining([calc.pid, pad.pid]));
    expect(info.apps.find((x) => x.pid === calc.pid)?.alias).toBe('calc');
    expect(second.text).toContain(`galculator (pid ${calc.pid}, alias calc)`);
    console.log(`ax_session_info summary: ${Buffer.byteLength(second.text)} bytes`);
    expect(info.settings).toMatchObject({ mode: 'full', screenshots: 'file', record_text: false });
    expect(info.session_log).toBe(sessionLog());
    for (const f of info.recent_files) {
      expect(fs.existsSync(path.join(session.artifactDir, f))).toBe(true);
    }
    expect(Buffer.byteLength(second.text)).toBeLessThan(1200);
  });
});
