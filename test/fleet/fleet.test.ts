/**
 * Three desktop containers side by side under podman (deploy/Containerfile and its example
 * image with galculator and mousepad), one MCP client per container over HTTP, each with
 * its own token: the same short task on all three at once, each desktop's artifacts in its
 * own volume, a clean stop on SIGTERM, and a SIGKILL that loses nothing already written.
 * The apps are checked by what they do themselves: mousepad saves its file into the volume.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  CONTAINER_UID,
  buildFleetImages,
  httpGet,
  startDesktopContainer,
  type DesktopContainer,
} from '../../src/bench/fleet.js';
import { connectHttp, type HttpClient } from '../../src/harness/http-serve.js';
import { parseSummary } from '../../src/harness/summary-parse.js';
import { describeNeeding, program, runsAsRoot, type Need } from '../e2e/helpers/needs.js';

const fleetDep = (name: string): Need => ({
  ...program(name, name),
  install: `the Debian package ${name}, which scripts/install-fleet-deps.sh installs`,
});
const NEEDS = [runsAsRoot(), fleetDep('podman'), fleetDep('runc'), fleetDep('debootstrap')];

const N = 3;
let root: string | undefined;
const desktops: Array<{ c: DesktopContainer; token: string; client?: HttpClient }> = [];

describeNeeding(NEEDS, 'a fleet of desktop containers', () => {
  beforeAll(async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-fleet-'));
    root = dir;
    const { apps } = buildFleetImages();
    const started = await Promise.all(
      Array.from({ length: N }, async (_, k) => {
        const token = randomBytes(24).toString('hex');
        const tokenFile = path.join(dir, `token-${k}`);
        fs.writeFileSync(tokenFile, `${token}\n`, { mode: 0o644 });
        const c = await startDesktopContainer({
          image: apps,
          name: `axpage-fleet-test-${process.pid}-${k}`,
          volume: path.join(dir, `volume-${k}`),
          tokenFile,
        });
        return { c, token };
      }),
    );
    desktops.push(...started);
  }, 20 * 60_000);

  afterAll(async () => {
    for (const d of desktops) await d.client?.close().catch(() => undefined);
    await Promise.all(desktops.map((d) => d.c.remove()));
    if (root) fs.rmSync(root, { recursive: true, force: true });
  }, 120_000);

  it('each desktop says ready on /healthz and takes only its own token', async () => {
    for (const [k, d] of desktops.entries()) {
      const health = await httpGet(d.c.healthUrl);
      expect(health.status, health.body).toBe(200);
      const other = desktops[(k + 1) % N].token;
      const refused = await httpGet(d.c.url, { Authorization: `Bearer ${other}` });
      expect(refused.status).toBe(401);
    }
  });

  it('the same task on every desktop at once: galculator adds, mousepad saves into the volume', async () => {
    const results = await Promise.all(
      desktops.map(async (d, k) => {
        // A file in the volume that mousepad saves: what the app did, read from the host.
        const notes = path.join(d.c.volume, 'notes');
        fs.mkdirSync(notes, { mode: 0o700 });
        const note = path.join(notes, `note-${k}.txt`);
        fs.writeFileSync(note, 'first line\n');
        for (const p of [notes, note]) fs.chownSync(p, CONTAINER_UID, CONTAINER_UID);
        const client = await connectHttp(d.c.url, d.token);
        d.client = client;
        const ok = async (tool: string, args: Record<string, unknown>) => {
          const r = await client.call(tool, args);
          expect(r.isError, `${tool} on desktop ${k}: ${r.text}`).toBe(false);
          return r;
        };
        const calc = await ok('ax_launch_app', { command: ['galculator'] });
        const calcPid = Number(parseSummary(calc.text).fields.pid);
        for (const key of [String(k + 1), '+', '8', '=']) {
          await ok('ax_click', { app: calcPid, query: `button:${key}` });
        }
        const tree = await ok('ax_get_tree', { app: calcPid });
        const treeFile = d.c.hostPath(parseSummary(tree.text).fields.file);
        const display = /\[AXTextArea \(text\)\] "([^"]*)"/.exec(fs.readFileSync(treeFile, 'utf8'));

        const pad = await ok('ax_launch_app', {
          command: ['mousepad', `/var/lib/axpage/notes/note-${k}.txt`],
        });
        const padPid = Number(parseSummary(pad.text).fields.pid);
        const marker = `desktop${k}x${randomBytes(4).toString('hex')}`;
        await ok('ax_type', { app: padPid, query: 'textarea', text: marker });
        await ok('ax_key_press', { app: padPid, key: 'ctrl+s' });
        await waitFor(() => fs.readFileSync(note, 'utf8').includes(marker), `note-${k} saved`);
        return { k, display: display?.[1], marker, treeFile };
      }),
    );
    for (const r of results) expect(r.display, `desktop ${r.k}`).toBe(String(r.k + 1 + 8));
    // Each volume holds its own desktop's calls and nothing of the others'.
    for (const [k, d] of desktops.entries()) {
      const dir = path.join(d.c.volume, 'artifacts');
      const text = fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.txt') || f.endsWith('.jsonl'))
        .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
        .join('\n');
      for (const other of results.filter((r) => r.k !== k)) {
        expect(fs.existsSync(path.join(dir, path.basename(other.treeFile)))).toBe(false);
        expect(text).not.toContain(other.marker);
      }
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
      expect(sessionLog(dir).map((l) => l.tool)).toEqual(
        expect.arrayContaining(['ax_launch_app', 'ax_click', 'ax_type', 'ax_key_press']),
      );
    }
  }, 300_000);

  it('SIGTERM stops a desktop cleanly: apps closed, exit 0, its files whole', async () => {
    const d = desktops[2];
    await d.client?.close();
    d.client = undefined;
    const code = await d.c.stop(30);
    const logs = await d.c.logs();
    expect(code, logs).toBe(0);
    expect(logs).toMatch(/closing \d+ app process/);
    expect(logs).not.toMatch(/killing what did not close/);
    expect(logs).toMatch(/stopped \(exit 0\)/);
    expectWhole(path.join(d.c.volume, 'artifacts'));
  });

  it('SIGKILL in the middle of calls loses nothing already written', async () => {
    const d = desktops[0];
    const dir = path.join(d.c.volume, 'artifacts');
    const before = hashes(dir);
    const client = d.client!;
    const pairs = () => fs.readdirSync(dir).filter((f) => /^\d+_.*\.txt$/.test(f)).length;
    const pairsBefore = pairs();
    // Calls keep going until the kill; it lands once at least one more pair is written.
    let stop = false;
    void (async () => {
      while (!stop) await client.call('ax_get_tree', { app: 'galculator' }).catch(() => undefined);
    })();
    await waitFor(() => pairs() > pairsBefore, 'a pair written while busy');
    await d.c.kill('KILL');
    // The call in flight has no server to answer it any more: it is left to fail on its own.
    stop = true;
    d.client = undefined;
    for (const [file, hash] of before) {
      expect(fs.existsSync(path.join(dir, file)), file).toBe(true);
      // Logs only grow; everything else written before stays byte for byte.
      if (!file.endsWith('.jsonl') && !file.endsWith('.log') && file !== '.reserve') {
        expect(hashOf(path.join(dir, file)), file).toBe(hash);
      }
    }
    expectWhole(dir);
  }, 180_000);
});

function waitFor(cond: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + timeoutMs;
    const tick = () => {
      let ok: boolean;
      try {
        ok = cond();
      } catch {
        ok = false;
      }
      if (ok) return resolve();
      if (Date.now() > deadline) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 50);
    };
    tick();
  });
}

function sessionLog(dir: string): Array<{ tool: string }> {
  return fs
    .readdirSync(dir)
    .filter((f) => /^session-.*\.jsonl$/.test(f))
    .flatMap((f) => {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      expect(text.endsWith('\n'), `${f} ends in a whole line`).toBe(true);
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { tool: string });
    });
}

/** Every pair complete (a PNG to its IEND chunk, a tree file to its last newline), every log line JSON. */
function expectWhole(dir: string): void {
  const files = fs.readdirSync(dir);
  const pngs = files.filter((f) => /^\d+_.*\.png$/.test(f));
  const trees = files.filter((f) => /^\d+_.*\.txt$/.test(f));
  expect(trees.length).toBeGreaterThan(0);
  for (const f of pngs) {
    const bytes = fs.readFileSync(path.join(dir, f));
    expect(bytes.subarray(0, 8).toString('hex'), f).toBe('89504e470d0a1a0a');
    expect(bytes.subarray(-12, -4).toString('latin1'), f).toBe('\0\0\0\0IEND');
  }
  const logged = fs
    .readdirSync(dir)
    .filter((f) => /^session-.*\.jsonl$/.test(f))
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .join('');
  // A call claims its tree file's name with an empty file before it walks, and the whole
  // tree replaces it by a rename: killed in between, the claim of the one call in flight
  // stays empty. It was never written, no answer or log line names it.
  const claims = trees.filter((f) => fs.statSync(path.join(dir, f)).size === 0);
  expect(claims.length, claims.join(' ')).toBeLessThanOrEqual(1);
  for (const f of claims) expect(logged).not.toContain(f);
  for (const f of trees.filter((t) => !claims.includes(t))) {
    expect(fs.readFileSync(path.join(dir, f), 'utf8').endsWith('\n'), f).toBe(true);
  }
  expect(sessionLog(dir).length).toBeGreaterThan(0);
  for (const f of files.filter((f) => f.endsWith('.jsonl'))) {
    const text = fs.readFileSync(path.join(dir, f), 'utf8');
    for (const line of text.split('\n').filter(Boolean)) {
      expect(() => JSON.parse(line) as unknown, `${f}: ${line.slice(0, 80)}`).not.toThrow();
    }
  }
}

function hashOf(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function hashes(dir: string): Map<string, string> {
  return new Map(
    fs
      .readdirSync(dir)
      .filter((f) => !f.endsWith('.tmp'))
      .map((f) => [f, hashOf(path.join(dir, f))]),
  );
}
