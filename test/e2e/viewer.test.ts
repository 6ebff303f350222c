/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * `axpage view` in a real browser: a short session recorded through the harness on the
 * form fixture (a tree, a password typed, a check box and Submit clicked, one call that
 * fails), `axpage view` on its log as a child process, and Debian's Chromium driven by
 * playwright-core. Checked against the files on disk, read with src/visual's own parser
 * (not the viewer's): every box sits on its element's frame minus the capture origin,
 * scaled to the image as shown; each diff box has its kind's colour and the kinds are
 * the file's; search finds a ref; j/k move between calls; the pixel diff of two calls
 * shows; the secret typed never reaches the page. Screenshots of the page are kept for a
 * reviewer (the path is printed).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { allPresent, describeNeeding, file } from './helpers/needs.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { packageRoot, Session } from '../../src/harness/session.js';
import {
  captureOriginOf,
  elementsOfTreeFile,
  parseElementLine,
  pngSize,
} from '../../src/visual/index.js';

const CHROMIUM = '/usr/bin/chromium';
const SECRET = 'viewer-e2e-hunter2';
const CHROMIUM_NEED = file(CHROMIUM, 'chromium');
const haveChromium = allPresent([CHROMIUM_NEED]);

let session: Session;
let form: LaunchedApp;
let log: string;
let view: ChildProcess | undefined;
let bigView: ChildProcess | undefined;
let viewExit: Promise<number | null>;
let url: string;
let browser: Browser;
let page: Page;
/** Kept after the run: the page as a reviewer would see it. */
const shots = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-viewer-e2e-'));

/** The calls, in order; `diffAt` is the one whose diff the checks read. */
const script: Array<[string, Record<string, unknown>]> = [];
let submitAt = -1;
/** The summary text each call returned to the client. */
const replies: string[] = [];

beforeAll(async () => {
  if (!haveChromium) return;
  session = await Session.start();
  form = await session.launchFixture('form.py', [], { env: { AXPAGE_FIXTURE_SECRET: SECRET } });
  await form.output!.waitForEvent((e) => e.event === 'ready');
  script.push(
    ['ax_get_tree', { app: form.pid }],
    ['ax_type', { app: form.pid, query: 'Password', text: SECRET }],
    ['ax_click', { app: form.pid, query: 'checkbox:Subscribe' }],
    ['ax_click', { app: form.pid, query: 'button:Submit' }],
    ['ax_click', { app: form.pid, query: 'button:no-such-button-here' }],
  );
  submitAt = 3;
  for (const [tool, args] of script) {
    const r = await session.call(tool, args);
    replies.push(r.text);
    expect(r.isError, r.text).toBe(String(args.query).includes('no-such'));
  }
  // The form's own word that the click landed: the status label changed.
  await form.output!.waitForEvent((e) => e.event === 'status');
  const logs = fs.readdirSync(session.artifactDir).filter((f) => /^session-.*\.jsonl$/.test(f));
  expect(logs).toHaveLength(1);
  log = path.join(session.artifactDir, logs[0]);

  const started = await startView(log);
  view = started.child;
  viewExit = started.exit;
  url = started.url;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.goto(url);
  await page.waitForFunction(
    (n) => document.querySelectorAll('#calls tr.call').length === n,
    script.length,
  );
}, 100_000);

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  for (const child of [view, bigView]) {
    if (child?.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGTERM');
  }
  await session?.close();
  process.stdout.write(`viewer e2e: screenshots of the page in ${shots}\n`);
});

/** `axpage view <target>` as a child process, once it has printed its URL. */
async function startView(
  target: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ child: ChildProcess; exit: Promise<number | null>; url: string }> {
  const child = spawn(
    process.execPath,
    [path.join(packageRoot(), 'dist', 'cli.js'), 'view', ...(target === undefined ? [] : [target])],
    { stdio: ['ignore', 'pipe', 'pipe'], env },
  );
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /^(http:\/\/127\.0\.0\.1:\d+\/\?t=\S+)$/m.exec(out);
      if (m) resolve(m[1]);
    });
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    child.once('exit', (code) => reject(new Error(`axpage view exited ${code}: ${err}${out}`)));
  });
  return { child, exit, url };
}

function treeFile(index: number): string {
  const line = fs.readFileSync(log, 'utf8').trim().split('\n')[index];
  const rec = JSON.parse(line) as { tree?: string };
  return fs.readFileSync(path.join(session.artifactDir, rec.tree!), 'utf8');
}

function pngOf(index: number): Buffer {
  const line = fs.readFileSync(log, 'utf8').trim().split('\n')[index];
  const rec = JSON.parse(line) as { png?: string };
  return fs.readFileSync(path.join(session.artifactDir, rec.png!));
}

async function open(index: number): Promise<void> {
  await page.click(`#calls tr[data-index="${index}"]`);
  await waitLoaded(index);
}

async function waitLoaded(index: number): Promise<void> {
  await page.waitForFunction((i) => document.body.dataset.loaded === String(i), index);
  await page.waitForFunction(() => {
    const img = document.getElementById('shot-img') as HTMLImageElement;
    return document.getElementById('shot')!.hidden || (img.complete && img.naturalWidth > 0);
  });
}

type Kind = 'added' | 'removed' | 'modified' | 'moved';

/** The `# diff:` section of a tree file, read here: ref → kind. */
function diffKinds(text: string): Map<string, Kind> {
  const out = new Map<string, Kind>();
  let inDiff = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('# ')) {
      inDiff = line.startsWith('# diff:');
      continue;
    }
    if (!inDiff) continue;
    const m = /^([+~-]) (moved )?\[[^\]]+\](?: "(?:[^"\\]|\\.)*")?.*? (e[1-9]\d*)\b/.exec(line);
    if (!m) continue;
    const kind: Kind =
      m[1] === '+' ? 'added' : m[1] === '-' ? 'removed' : m[2] ? 'moved' : 'modified';
    out.set(m[3], kind);
  }
  return out;
}

/**
 * Every diff box on the page has its kind's colour and the kind the file's diff section
 * gives its ref; every diffed element with a frame in the file has its box. Returns the
 * kinds drawn.
 */
async function checkDiffColours(on: Page, text: string): Promise<Set<Kind>> {
  const kinds = diffKinds(text);
  const colours = await on.evaluate(() => {
    const css = getComputedStyle(document.documentElement);
    const want: Record<string, string> = {};
    for (const k of ['added', 'removed', 'modified', 'moved']) {
      const probe = document.createElement('div');
      probe.style.color = css.getPropertyValue(`--${k}`);
      document.body.appendChild(probe);
      want[k] = getComputedStyle(probe).color;
      probe.remove();
    }
    const got = [...document.querySelectorAll<HTMLElement>('#boxes .box[data-diff]')].map((b) => ({
      ref: b.dataset.ref,
      diff: b.dataset.diff,
      colour: getComputedStyle(b).borderTopColor,
    }));
    return { want, got };
  });
  // Four different colours, one per kind.
  expect(new Set(Object.values(colours.want)).size).toBe(4);
  for (const { ref, diff, colour } of colours.got) {
    expect(diff, ref).toBe(kinds.get(ref!));
    expect(colour, ref).toBe(colours.want[diff!]);
  }
  const framed = new Set(elementsOfTreeFile(text).map((e) => e.ref));
  for (const line of text.split('\n')) {
    const removed = line.startsWith('- ') ? parseElementLine(line.slice(2)) : undefined;
    if (removed) framed.add(removed.ref);
  }
  for (const [ref, kind] of kinds) {
    if (!framed.has(ref)) continue;
    expect(
      colours.got.some((g) => g.ref === ref && g.diff === kind),
      `${ref} (${kind}) drawn`,
    ).toBe(true);
  }
  return new Set(colours.got.map((g) => g.diff as Kind));
}

function get(pathname: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: pathname }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

describeNeeding([CHROMIUM_NEED], 'axpage view in Chromium', () => {
  it('lists every call in order with its tool and outcome', async () => {
    const rows = await page.$$eval('#calls tr.call', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    );
    expect(rows.map((r) => r[1])).toEqual(script.map(([tool]) => tool));
    expect(rows[script.length - 1][3]).not.toBe('success');
    expect(rows[0][3]).toBe('success');
    await page.screenshot({ path: path.join(shots, '1-timeline.png') });
  });

  it('draws each box on its element: frame minus capture origin, scaled to the image shown', async () => {
    await open(submitAt);
    const text = treeFile(submitAt);
    const png = pngOf(submitAt);
    const size = await pngSize(png);
    const origin = captureOriginOf(text, size);
    const elements = elementsOfTreeFile(text).filter((e) => e.frame.w > 0 && e.frame.h > 0);
    expect(elements.length).toBeGreaterThan(5);
    const drawn = await page.evaluate(() => {
      const img = document.getElementById('shot-img')!.getBoundingClientRect();
      const boxes = [...document.querySelectorAll<HTMLElement>('#boxes .box')].map((b) => {
        const r = b.getBoundingClientRect();
        return { ref: b.dataset.ref, x: r.x - img.x, y: r.y - img.y, w: r.width, h: r.height };
      });
      return { shown: { w: img.width, h: img.height }, boxes };
    });
    const scale = drawn.shown.w / size.width;
    expect(drawn.shown.h / size.height).toBeCloseTo(scale, 2);
    let checked = 0;
    for (const el of elements) {
      const box = drawn.boxes.find((b) => b.ref === el.ref);
      expect(box, `a box for ${el.ref}`).toBeDefined();
      expect(box!.x).toBeCloseTo((el.frame.x - origin.x) * scale, 0);
      expect(box!.y).toBeCloseTo((el.frame.y - origin.y) * scale, 0);
      expect(box!.w).toBeCloseTo(el.frame.w * scale, 0);
      expect(box!.h).toBeCloseTo(el.frame.h * scale, 0);
      checked++;
    }
    expect(checked).toBe(elements.length);
    await page.screenshot({ path: path.join(shots, '2-boxes.png'), fullPage: true });
  });

  it('colours the diff boxes by the kinds the file lists', async () => {
    await open(submitAt);
    const drawn = await checkDiffColours(page, treeFile(submitAt));
    expect(drawn.size).toBeGreaterThan(0);
    const legend = await page.$$eval('#legend .sw', (s) => s.map((e) => e.className));
    expect(legend).toHaveLength(4);
  });

  it('shows an element on hover and its tree line on click', async () => {
    await open(submitAt);
    const el = elementsOfTreeFile(treeFile(submitAt)).find((e) => e.text === 'Submit')!;
    const box = page.locator(`#boxes .box[data-ref="${el.ref}"]`);
    await box.hover();
    const tip = await page.textContent('#tip');
    expect(tip).toContain(el.ref);
    expect(tip).toContain(el.role);
    await box.click();
    const hot = await page.$eval('#tree .line.hot', (d) => ({
      line: d.textContent,
      ref: (d as HTMLElement).dataset.ref,
    }));
    expect(hot.ref).toBe(el.ref);
    expect(hot.line).toContain(`${el.ref} x:`);
  });

  it('search finds a ref in the tree file; the role filter keeps only that role', async () => {
    await open(submitAt);
    const text = treeFile(submitAt);
    // The label Submit changed: its ref is on its tree line and on the diff's line.
    const el = elementsOfTreeFile(text).find((e) => e.text === 'Submitted')!;
    await page.fill('#search', el.ref);
    const shown = await page.$$eval('#tree .line:not(.hidden)', (ds) =>
      ds.map((d) => Number((d as HTMLElement).dataset.line)),
    );
    const fileLines = text.split('\n');
    const want = fileLines
      .map((l, i) => (new RegExp(`\\b${el.ref}\\b`).test(l) ? i + 1 : 0))
      .filter((n) => n > 0);
    expect(want.length).toBe(2);
    expect(shown).toEqual(want);
    await page.screenshot({ path: path.join(shots, '3-search.png'), fullPage: true });
    await page.fill('#search', '');
    await page.selectOption('#role-filter', el.role);
    const roles = await page.$$eval('#tree .line:not(.hidden)', (ds) =>
      ds.map((d) => (d as HTMLElement).dataset.role),
    );
    expect(roles.length).toBeGreaterThan(0);
    expect(new Set(roles)).toEqual(new Set([el.role]));
    await page.selectOption('#role-filter', '');
  });

  it('moves between calls with j/k and the arrow keys', async () => {
    await open(1);
    await page.focus('body');
    const selected = () =>
      page.$eval('#calls tr.selected', (tr) => Number((tr as HTMLElement).dataset.index));
    await page.keyboard.press('j');
    expect(await selected()).toBe(2);
    await page.keyboard.press('ArrowDown');
    expect(await selected()).toBe(3);
    await page.keyboard.press('k');
    expect(await selected()).toBe(2);
    await page.keyboard.press('ArrowUp');
    expect(await selected()).toBe(1);
  });

  it('shows two calls side by side with their pixel diff', async () => {
    await open(submitAt - 1);
    await page.keyboard.press('a');
    await open(submitAt);
    await page.keyboard.press('c');
    await page.waitForFunction(() => {
      const img = document.getElementById('cmp-diff') as HTMLImageElement;
      return img.complete && img.naturalWidth > 0;
    });
    const size = await pngSize(pngOf(submitAt));
    const diff = await page.$eval('#cmp-diff', (i) => ({
      w: (i as HTMLImageElement).naturalWidth,
      h: (i as HTMLImageElement).naturalHeight,
      visible: !(i as HTMLElement).closest('[hidden]'),
    }));
    expect(diff).toEqual({ w: size.width, h: size.height, visible: true });
    await page.screenshot({ path: path.join(shots, '4-compare.png'), fullPage: true });
  });

  it('shows the summary each call returned to the client', async () => {
    let compared = 0;
    for (let i = 0; i < script.length; i++) {
      const rec = JSON.parse(fs.readFileSync(log, 'utf8').trim().split('\n')[i]) as {
        secret?: true;
      };
      await open(i);
      const shown = await page.textContent('#summary');
      // A call into a password field keeps no summary in the log; one naming typed text
      // keeps it masked: neither can be the text the client got.
      if (rec.secret) expect(shown).toMatch(/kept no summary/);
      if (rec.secret || replies[i].includes(SECRET)) continue;
      expect(shown, script[i][0]).toBe(replies[i]);
      compared++;
    }
    expect(compared).toBeGreaterThan(2);
  });

  it('never shows the password typed', async () => {
    for (let i = 0; i < script.length; i++) {
      await open(i);
      expect(await page.textContent('body')).not.toContain(SECRET);
    }
  });

  it('refuses a request without the token (403) and a path out of the dir', async () => {
    const port = Number(new URL(url).port);
    expect(await get('/', port)).toBe(403);
    expect(await get('/api/calls', port)).toBe(403);
    const status = await page.evaluate(async () => {
      const r = await fetch('/files/..%2F..%2F..%2Fetc%2Fpasswd');
      return r.status;
    });
    expect([403, 404]).toContain(status);
    const ok = await page.evaluate(async () => (await fetch('/api/calls')).status);
    expect(ok).toBe(200);
  });

  it('stops on SIGTERM', async () => {
    process.kill(view!.pid!, 'SIGTERM');
    expect(await viewExit).toBe(0);
  });

  it('with no argument serves the dir AXPAGE_OUT names, through its newest log', async () => {
    const dir = path.dirname(log);
    const other = await startView(undefined, { ...process.env, AXPAGE_OUT: dir });
    try {
      const token = new URL(other.url).searchParams.get('t')!;
      const res = await fetch(new URL('/api/calls', other.url), {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { total: number; calls: Array<{ tool: string }> };
      const logged = fs.readFileSync(log, 'utf8').trim().split('\n');
      expect(body.total).toBe(logged.length);
      expect(body.calls.map((c) => c.tool)).toEqual(
        logged.slice(0, body.calls.length).map((l) => (JSON.parse(l) as { tool: string }).tool),
      );
    } finally {
      other.child.kill('SIGTERM');
      await other.exit;
    }
  });
});

/**
 * A dir of 500 pairs (the Submit pair copied, no session log), one of them with a diff of
 * all four kinds written into its file: the timeline loads a page at a time as it scrolls
 * or as j walks past the last row loaded, and each kind gets its colour.
 */
describeNeeding([CHROMIUM_NEED], 'axpage view on a 500-pair dir', () => {
  const PAIRS = 500;
  const FOUR_KINDS_AT = 250;
  let bigPage: Page;
  let bigDir: string;

  function fourKinds(text: string): string {
    const els = elementsOfTreeFile(text);
    const line = (ref: string) => text.split('\n').find((l) => new RegExp(`\\b${ref} x:`).test(l))!;
    const submit = els.find((e) => e.text === 'Submit')!;
    const subscribe = els.find((e) => e.text === 'Subscribe')!;
    const status = els.find((e) => e.text === 'Submitted')!;
    const s = subscribe.frame;
    const diff = [
      '# diff: +1 -1 ~2 (1 moved)',
      `+ ${line(submit.ref).trim()}`,
      `- [AXStaticText (label)] "Gone" e99 x:${s.x - 70} y:${s.y} w:60 h:${s.h} visible enabled`,
      `~ ${line(status.ref)
        .trim()
        .replace(/ x:.*$/, '')} | name: 'Status' -> 'Submitted'`,
      `~ moved ${line(subscribe.ref)
        .trim()
        .replace(/ x:.*$/, '')} | frame: ${s.x},${s.y - 12} -> ${s.x},${s.y}`,
    ];
    return text.replace(/^# diff:.*\n(?:[+~-] .*\n)*/m, `${diff.join('\n')}\n`);
  }

  beforeAll(async () => {
    bigDir = fs.mkdtempSync(path.join(session.artifactDir, 'big-'));
    const text = treeFile(submitAt);
    const png = pngOf(submitAt);
    const base = 1_700_000_000_000;
    for (let i = 0; i < PAIRS; i++) {
      const name = `${base + i * 10}_click`;
      fs.writeFileSync(
        path.join(bigDir, `${name}.txt`),
        i === FOUR_KINDS_AT ? fourKinds(text) : text,
      );
      fs.writeFileSync(path.join(bigDir, `${name}.png`), png);
    }
    const started = await startView(bigDir);
    bigView = started.child;
    bigPage = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await bigPage.goto(started.url);
    await bigPage.waitForFunction(() => document.querySelectorAll('#calls tr.call').length > 0);
  }, 60_000);

  const rows = () => bigPage.$$eval('#calls tr.call', (trs) => trs.length);

  it('loads the first page only, the next when j walks past it, the rest as it scrolls', async () => {
    const first = await rows();
    expect(first).toBeLessThan(PAIRS);
    await bigPage.click(`#calls tr[data-index="${first - 1}"]`);
    await bigPage.keyboard.press('j');
    await bigPage.waitForFunction(
      (i) => document.querySelector('#calls tr.selected')?.getAttribute('data-index') === String(i),
      first,
    );
    expect(await rows()).toBeGreaterThan(first);
    while ((await rows()) < PAIRS) {
      const before = await rows();
      await bigPage.$eval('#timeline', (t) => t.scrollTo(0, t.scrollHeight));
      await bigPage.waitForFunction(
        (n) => document.querySelectorAll('#calls tr.call').length > n,
        before,
      );
    }
    expect(await rows()).toBe(PAIRS);
    const numbers = await bigPage.$$eval('#calls tr.call', (trs) =>
      trs.map((tr) => Number((tr as HTMLElement).dataset.index)),
    );
    expect(numbers).toEqual([...Array(PAIRS).keys()]);
  });

  it('colours added, removed, modified and moved boxes apart', async () => {
    await bigPage.click(`#calls tr[data-index="${FOUR_KINDS_AT}"]`);
    await bigPage.waitForFunction((i) => document.body.dataset.loaded === String(i), FOUR_KINDS_AT);
    const names = fs
      .readdirSync(bigDir)
      .filter((f) => f.endsWith('.txt'))
      .sort();
    const text = fs.readFileSync(path.join(bigDir, names[FOUR_KINDS_AT]), 'utf8');
    const drawn = await checkDiffColours(bigPage, text);
    expect([...drawn].sort()).toEqual(['added', 'modified', 'moved', 'removed']);
    await bigPage.locator('#shot').screenshot({ path: path.join(shots, '5-four-kinds.png') });
  });
});
