/**
 * The call logs and the viewer's files, end to end: a workflow whose `ax_type` step types
 * a secret into the form fixture's password entry, then every file in the artifact dir
 * and the viewer's /api/calls are searched for it (and for its length where a log keeps
 * lengths). Then the viewer is pointed at a dir with links planted in it (a tree file
 * that is a symlink to a secret outside the dir, a hard link to it, a `.txt` that is no
 * pair's): it serves none of them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { packageRoot, Session } from '../../src/harness/session.js';

const SECRET = 'CallLogs-Wf-pw-9qZ';
const OUTSIDE_SECRET = 'outside-the-dir-secret-K3v';

let session: Session;
let form: LaunchedApp;
const views: ChildProcess[] = [];
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-call-logs-'));

beforeAll(async () => {
  session = await Session.start();
  form = await session.launchFixture('form.py', [], {
    env: { AXPAGE_FIXTURE_SECRET: 'initial-pw' },
  });
}, 60_000);

afterAll(async () => {
  for (const v of views) if (v.exitCode === null && v.pid) process.kill(v.pid, 'SIGTERM');
  await session?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** `axpage view <target>`: its URL's origin and token, once printed. */
async function startView(target: string): Promise<{ origin: string; token: string }> {
  const child = spawn(
    process.execPath,
    [path.join(packageRoot(), 'dist', 'cli.js'), 'view', target],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  views.push(child);
  const url = await new Promise<URL>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/\?t=\S+)$/m.exec(out);
      if (m) resolve(new URL(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`axpage view exited ${code}: ${out}`)));
  });
  return { origin: url.origin, token: url.searchParams.get('t')! };
}

async function get(
  view: { origin: string; token: string },
  route: string,
): Promise<{ status: number; body: string }> {
  const r = await fetch(`${view.origin}${route}`, {
    headers: { Authorization: `Bearer ${view.token}` },
  });
  return { status: r.status, body: await r.text() };
}

/** Every file under `dir`, as bytes read as latin1 (PNGs too: a string in them shows). */
function everyFile(dir: string): Array<[string, string]> {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => fs.lstatSync(file).isFile())
    .map((file) => [file, fs.readFileSync(file).toString('latin1')]);
}

describe('a workflow typing into a password field', () => {
  it('leaves the typed text in no file of the dir and not in the viewer', async () => {
    const r = await session.call('ax_workflow', {
      steps: [
        { tool: 'ax_type', args: { app: form.pid, query: 'Name', text: 'Visible Name' } },
        {
          tool: 'ax_type',
          args: { app: form.pid, query: 'Password', text: SECRET, clear_first: true },
        },
      ],
    });
    expect(r.isError, r.text).toBe(false);
    // The app's own word that the password went in: its length changed to the secret's.
    await form.output!.waitForEvent(
      (e) => e.event === 'changed' && e.widget === 'password' && e.length === SECRET.length,
    );
    const files = everyFile(session.artifactDir);
    expect(files.some(([f]) => /session-.*\.jsonl$/.test(f))).toBe(true);
    expect(files.some(([f]) => f.endsWith('audit.jsonl'))).toBe(true);
    for (const [file, text] of files) expect(text, file).not.toContain(SECRET);

    const log = files.find(([f]) => /session-.*\.jsonl$/.test(f))![1];
    const line = JSON.parse(log.trim().split('\n').at(-1)!) as {
      tool: string;
      secret?: boolean;
      args: { steps: Array<{ args: Record<string, unknown> }> };
    };
    expect(line.tool).toBe('ax_workflow');
    expect(line.secret).toBe(true);
    // Nothing of it, not even its length.
    expect(line.args.steps[1].args.text).toEqual({ masked: 'secret' });

    const view = await startView(session.artifactDir);
    const calls = await get(view, '/api/calls');
    expect(calls.status).toBe(200);
    expect(calls.body).toContain('ax_workflow');
    expect(calls.body).not.toContain(SECRET);
    expect(calls.body).not.toContain('Visible Name');
  });
});

describe('the viewer and links planted in its dir', () => {
  it('serves no file that is a link, outside the dir, or not a pair file', async () => {
    // A dir of its own holding one real pair, and beside it what a probe could plant.
    const dir = path.join(scratch, 'planted');
    fs.mkdirSync(dir, { mode: 0o700 });
    const tree = fs
      .readdirSync(session.artifactDir)
      .find((f) => /^\d+(-\d+)?_[a-z_]+\.txt$/.test(f))!;
    fs.copyFileSync(
      path.join(session.artifactDir, tree),
      path.join(dir, '1700000000000_get_tree.txt'),
    );
    const outside = path.join(scratch, 'outside.txt');
    fs.writeFileSync(
      outside,
      `# tool: ax_get_tree\n[AXButton] "${OUTSIDE_SECRET}" e1 x:1 y:1 w:5 h:5\n`,
    );
    fs.symlinkSync(outside, path.join(dir, '1700000000001_get_tree.txt'));
    fs.linkSync(outside, path.join(dir, '1700000000002_get_tree.txt'));
    fs.copyFileSync(outside, path.join(dir, 'notes.txt'));

    const view = await startView(dir);
    const calls = await get(view, '/api/calls');
    expect(calls.status).toBe(200);
    const listed = (JSON.parse(calls.body) as { calls: Array<{ tree?: string }> }).calls;
    expect(listed.map((c) => c.tree)).toContain('1700000000000_get_tree.txt');
    // The real pair opens; nothing else gives the outside file's text.
    expect(
      (
        await get(
          view,
          `/api/pair/${listed.findIndex((c) => c.tree === '1700000000000_get_tree.txt')}`,
        )
      ).status,
    ).toBe(200);
    const answers: Array<[string, { status: number; body: string }]> = [];
    for (let i = 0; i < listed.length; i++) {
      answers.push([`/api/pair/${i}`, await get(view, `/api/pair/${i}`)]);
    }
    for (const name of ['1700000000001_get_tree.txt', '1700000000002_get_tree.txt', 'notes.txt']) {
      const r = await get(view, `/files/${name}`);
      expect(r.status, name).toBe(404);
      answers.push([`/files/${name}`, r]);
    }
    for (const [route, r] of answers) expect(r.body, route).not.toContain(OUTSIDE_SECRET);
  });

  it('a session log naming a planted link: the call lists, its pair is not served; a linked log is no log', async () => {
    const dir = path.join(scratch, 'logged');
    fs.mkdirSync(dir, { mode: 0o700 });
    const outside = path.join(scratch, 'outside2.txt');
    fs.writeFileSync(
      outside,
      `# tool: ax_get_tree\n[AXButton] "${OUTSIDE_SECRET}" e1 x:1 y:1 w:5 h:5\n`,
    );
    fs.symlinkSync(outside, path.join(dir, '1700000000005_get_tree.txt'));
    const record = {
      seq: 1,
      time: new Date().toISOString(),
      tool: 'ax_get_tree',
      args: {},
      outcome: 'success',
      ms: 1,
      summary_bytes: 1,
      refs: [],
      tree: '1700000000005_get_tree.txt',
    };
    fs.writeFileSync(
      path.join(dir, 'session-1700000000000-1.jsonl'),
      JSON.stringify(record) + '\n',
      {
        mode: 0o600,
      },
    );
    // A newer log that is a link to a file of records outside: not the run's log.
    const outsideLog = path.join(scratch, 'outside.jsonl');
    fs.writeFileSync(
      outsideLog,
      JSON.stringify({ ...record, summary: OUTSIDE_SECRET, tree: undefined }) + '\n',
    );
    fs.symlinkSync(outsideLog, path.join(dir, 'session-1800000000000-1.jsonl'));
    const view = await startView(dir);
    const calls = await get(view, '/api/calls');
    expect(calls.body).toContain('1700000000005_get_tree.txt');
    expect(calls.body).not.toContain(OUTSIDE_SECRET);
    const pair = await get(view, '/api/pair/0');
    expect(pair.status).toBe(404);
    expect(pair.body).not.toContain(OUTSIDE_SECRET);
  });
});
