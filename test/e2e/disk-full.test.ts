/**
 * A full disk and a read-only artifact dir, on a real small tmpfs (mounted here; CI runs
 * as root as this does, and there a failed mount fails the test instead of skipping it):
 *
 * - the dir is nearly full: every click is refused before it acts (`disk_full`, saying
 *   what to do) and the app's own count of its clicks shows none happened; nothing is
 *   left in the dir but whole log lines;
 * - the click itself fills the disk (the fixture's Fill disk button, another process,
 *   writes to the last byte inside its handler, mid-call): the click is reported done,
 *   with its effect and why its pair is missing, not as an error; no empty or half pair
 *   is left; it and every call refused after it keep their whole session and audit lines
 *   (the dir's log reserve is given back for them), and the reserve is made again once
 *   room returns;
 * - the dir is made read-only: refused (`artifacts_unwritable`), nothing done.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { Session, type CallResult } from '../../src/harness/session.js';
import { readClipboard } from './helpers/oracle.js';
import { describeNeeding, type Need } from './helpers/needs.js';

const mnt = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-small-disk-'));
const out = path.join(mnt, 'out');
const filler = path.join(mnt, 'filler');

/** A tmpfs of `size` at mnt, or why not. */
function mountTmpfs(size: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', mnt], {
      stdio: 'pipe',
    });
    return undefined;
  } catch (err) {
    return (err as { stderr?: Buffer }).stderr?.toString().trim() || String(err);
  }
}

const mountFailure = mountTmpfs('8m');
const smallDisk: Need = {
  what: `a small tmpfs at ${mnt}${mountFailure ? ` (mount said: ${mountFailure})` : ''}`,
  install: 'run the tests as root (CI does), where mount(8) can mount a tmpfs',
  present: mountFailure === undefined,
};

let session: Session;
let app: LaunchedApp;
/** Every call made, in order (the session log must have a whole line per call or none). */
const results: CallResult[] = [];

beforeAll(async () => {
  if (mountFailure) return;
  session = await Session.start({ artifactDir: out });
  app = await session.launchFixture('disk_filler.py', [], {
    env: { AXPAGE_FIXTURE_FILL: filler },
  });
}, 60_000);

afterAll(async () => {
  await session?.close();
  if (!mountFailure) execFileSync('umount', ['-l', mnt]);
  fs.rmSync(mnt, { recursive: true, force: true });
});

// A test that fails half way leaves no filled disk to the next.
afterEach(() => fs.rmSync(filler, { force: true }));

/** Clicks made so far: each one has its audit line. */
let clicksMade = 0;

async function click(query: string): Promise<CallResult> {
  clicksMade++;
  const r = await session.call('ax_click', { app: app.pid, query });
  results.push(r);
  return r;
}

/** The app's own count of the presses it got, after one more press that must be done. */
async function pressesAfterOneMore(): Promise<number> {
  const from = app.output!.events.length;
  const r = await click('button:Press');
  expect(r.isError, r.text).toBe(false);
  const e = await app.output!.waitForEvent(
    (ev) => ev.event === 'clicked' && ev.widget === 'press',
    { from, timeoutMs: 10_000 },
  );
  return e.count as number;
}

/** Fills the tmpfs from here, leaving `leave` bytes free. */
function fillLeaving(leave: number): void {
  const st = fs.statfsSync(mnt);
  const free = st.bavail * st.bsize;
  fs.writeFileSync(filler, Buffer.alloc(Math.max(0, free - leave)));
}

function auditClicks(): number {
  const file = path.join(out, 'audit.jsonl');
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  return text.split('\n').filter((l) => l.includes('"tool":"ax_click"')).length;
}

function sessionLog(): string {
  const log = fs.readdirSync(out).find((f) => /^session-.*\.jsonl$/.test(f));
  return log ? fs.readFileSync(path.join(out, log), 'utf8') : '';
}

/** The dir holds no empty file (but the logs' reserve), no temp file, no PNG without its tree. */
function expectNoHalfPairs(): void {
  const names = fs.readdirSync(out);
  for (const name of names) {
    // The logs' reserve is emptied on purpose when the disk is full.
    if (name === '.reserve') continue;
    expect(name, 'a temp file left').not.toMatch(/\.tmp$/);
    expect(fs.statSync(path.join(out, name)).size, `${name} is empty`).toBeGreaterThan(0);
    if (name.endsWith('.png')) expect(names, name).toContain(name.replace(/\.png$/, '.txt'));
  }
}

/** Every line of the log is a whole record, and there is none for more calls than made. */
function expectWholeLogLines(): string[] {
  const text = sessionLog();
  expect(text === '' || text.endsWith('\n'), 'the log ends in a torn line').toBe(true);
  const lines = text.split('\n').filter((l) => l !== '');
  for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  expect(lines.length).toBeLessThanOrEqual(results.length);
  return lines;
}

describeNeeding([smallDisk], 'artifact dir on a small tmpfs', () => {
  it('nearly full: clicks are refused before acting, and say what to do', async () => {
    // A first click opens the dir and writes a pair: the app counts it.
    expect(await pressesAfterOneMore()).toBe(1);
    const before = fs.readdirSync(out).sort();
    // Room for log lines, not for a pair.
    fillLeaving(256 * 1024);
    for (let i = 0; i < 20; i++) {
      const r = await click('button:Press');
      expect(r.isError, r.text).toBe(true);
      expect(r.structured.error_code).toBe('disk_full');
      expect(r.text).toMatch(/nothing was done/);
      expect(r.text).toMatch(/AXPAGE_OUT/);
    }
    // Side effects outside an app's own actions are refused before they happen too.
    const clip = await session.call('ax_clipboard_write', { text: 'written while full' });
    results.push(clip);
    expect(clip.structured.error_code, clip.text).toBe('disk_full');
    expect(await readClipboard(session)).not.toBe('written while full');
    const marker = path.join(os.tmpdir(), `axpage-launched-while-full-${process.pid}`);
    fs.rmSync(marker, { force: true });
    const launch = await session.call('ax_launch_app', { command: ['touch', marker] });
    results.push(launch);
    expect(launch.structured.error_code, launch.text).toBe('disk_full');
    expect(fs.existsSync(marker), 'the launch ran').toBe(false);
    // Nothing new in the dir but the logs' lines, all of them whole.
    expect(fs.readdirSync(out).sort()).toEqual(before);
    expect(expectWholeLogLines()).toHaveLength(results.length);
    fs.rmSync(filler);
    // The app got none of the 20: its next press is its second.
    expect(await pressesAfterOneMore()).toBe(2);
    expectNoHalfPairs();
  });

  it('filled by the click itself: reported done with why its pair is missing, nothing half left', async () => {
    const from = app.output!.events.length;
    const r = await click('button:Fill disk');
    const filled = await app.output!.waitForEvent(
      (ev) => ev.event === 'clicked' && ev.widget === 'fill',
      { from, timeoutMs: 10_000 },
    );
    expect(filled.bytes as number).toBeGreaterThan(0);
    expect(r.isError, r.text).toBe(false);
    expect(r.structured.pair_error_code).toBe('disk_full');
    expect(r.text).toMatch(/not written/);
    expect(r.text).toMatch(/Fill disk/);
    expect(r.structured.file).toBeUndefined();
    expectNoHalfPairs();
    // Refused from now on, nothing done; every call keeps its lines in both logs.
    for (let i = 0; i < 40; i++) {
      const refused = await click('button:Press');
      expect(refused.structured.error_code, refused.text).toBe('disk_full');
    }
    expect(expectWholeLogLines()).toHaveLength(results.length);
    expect(auditClicks()).toBe(clicksMade);
    expectNoHalfPairs();
    fs.rmSync(filler);
    expect(await pressesAfterOneMore()).toBe(3);
    expectNoHalfPairs();
    // Room is back: so is the reserve, whole.
    expect(fs.statSync(path.join(out, '.reserve')).size).toBe(256 * 1024);
  });

  it('read-only: refused before acting as unwritable', async () => {
    execFileSync('mount', ['-o', 'remount,ro', mnt]);
    try {
      const r = await click('button:Press');
      expect(r.isError, r.text).toBe(true);
      expect(r.structured.error_code).toBe('artifacts_unwritable');
      expect(r.text).toMatch(/read-only/);
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', mnt]);
    }
    expect(await pressesAfterOneMore()).toBe(4);
    expectWholeLogLines();
  });
});
