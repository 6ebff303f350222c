/**
 * ax_visual_diff and ax_find_visual end to end on galculator (Debian package) in a real
 * headless desktop, through the MCP SDK's client. Effects are checked on the files
 * themselves: the PNGs decoded here, the tree file read here, the app's own display.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../../src/harness/session.js';
import { startSamplingClient } from '../../src/harness/sampling-client.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { mark } from './helpers/oracle.js';

const MAGENTA = [255, 0, 255];

let session: Session;
let calc: LaunchedApp;
let home: string;

beforeAll(async () => {
  session = await Session.start();
  await session.client.listTools();
  // A private HOME: galculator writes its settings there on exit.
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-visual-'));
  calc = await session.launch('galculator', [], { env: { HOME: home } });
}, 120_000);

afterAll(async () => {
  await session?.close();
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

interface Frame {
  x: number;
  y: number;
  w: number;
  h: number;
}

interface TreeElement {
  ref: string;
  role: string;
  text: string;
  frame: Frame;
}

/** The visible elements with a frame in a tree file's `# tree` section, read here. */
function visibleElements(file: string): TreeElement[] {
  const text = fs.readFileSync(file, 'utf8');
  const tree = text.slice(text.indexOf('\n# tree\n') + 8).split('\n# ')[0];
  const out: TreeElement[] = [];
  for (const line of tree.split('\n')) {
    const m =
      /^\s*\[(\S+?)[\] ].*?"((?:[^"\\]|\\.)*)".* (e\d+) x:(-?\d+) y:(-?\d+) w:(\d+) h:(\d+)(.*)$/.exec(
        line,
      );
    if (!m || !/ visible\b/.test(m[8])) continue;
    const [x, y, w, h] = [m[4], m[5], m[6], m[7]].map(Number);
    out.push({ role: m[1], text: m[2], ref: m[3], frame: { x, y, w, h } });
  }
  return out;
}

function viewportOf(file: string): Frame {
  const m = /^# viewport: (-?\d+),(-?\d+) (\d+)x(\d+)/m.exec(fs.readFileSync(file, 'utf8'));
  if (!m) throw new Error(`no viewport line in ${file}`);
  return { x: Number(m[1]), y: Number(m[2]), w: Number(m[3]), h: Number(m[4]) };
}

function display(file: string): TreeElement {
  const el = visibleElements(file).find((e) => e.role === 'AXTextArea');
  if (!el) throw new Error(`no display (AXTextArea) in ${file}`);
  return el;
}

async function raw(png: string) {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    width: info.width,
    height: info.height,
    at: (x: number, y: number) => [
      ...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 3),
    ],
  };
}

function overlaps(a: Frame, b: Frame): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

function mode(file: string): number {
  return fs.statSync(file).mode & 0o777;
}

describe('ax_visual_diff', () => {
  let pairA: { file: string; png: string };
  let pairB: { file: string; png: string };

  beforeAll(async () => {
    const a = await session.call('ax_get_tree', { app: calc.pid });
    expect(a.isError, a.text).toBe(false);
    const click = await session.call('ax_click', { app: calc.pid, query: 'button:7' });
    expect(click.isError, click.text).toBe(false);
    const b = await session.call('ax_get_tree', { app: calc.pid });
    expect(b.isError, b.text).toBe(false);
    pairA = { file: a.fields.file, png: a.fields.screenshot };
    pairB = { file: b.fields.file, png: b.fields.screenshot };
    // The app's own display says the key went in.
    expect(display(pairB.file).text).toBe('7');
  }, 120_000);

  it('A→B: a changed ratio, a region over the display, a 0600 diff PNG of the same size', async () => {
    const r = await session.call('ax_visual_diff', { before: pairA.file, after: pairB.png });
    expect(r.isError, r.text).toBe(false);
    const s = r.structured as {
      ratio: number;
      changed_pixels: number;
      regions: Array<Frame & { ref?: string }>;
      diff_png: string;
    };
    expect(s.ratio).toBeGreaterThan(0);
    expect(s.changed_pixels).toBeGreaterThan(0);
    const shown = display(pairB.file);
    expect(
      s.regions.some((reg) => overlaps(reg, shown.frame)),
      JSON.stringify(s.regions),
    ).toBe(true);
    // The display's own pixels differ between the two screenshots (read here).
    const vp = viewportOf(pairB.file);
    const [pa, pb] = await Promise.all([raw(pairA.png), raw(pairB.png)]);
    let differing = 0;
    for (let y = shown.frame.y; y < shown.frame.y + shown.frame.h; y++) {
      for (let x = shown.frame.x; x < shown.frame.x + shown.frame.w; x++) {
        if (pa.at(x - vp.x, y - vp.y).join() !== pb.at(x - vp.x, y - vp.y).join()) differing++;
      }
    }
    expect(differing).toBeGreaterThan(0);
    expect(s.diff_png).toBe(pairB.png.replace(/\.png$/, '.diff.png'));
    expect(mode(s.diff_png)).toBe(0o600);
    const meta = await sharp(s.diff_png).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', pa.width, pa.height]);
    expect(r.text).toContain(s.diff_png);
  });

  it('A→A: ratio 0', async () => {
    const r = await session.call('ax_visual_diff', {
      before: path.basename(pairA.file, '.txt'),
      after: pairA.png,
    });
    expect(r.isError, r.text).toBe(false);
    expect(r.structured.ratio).toBe(0);
    expect(r.structured.changed_pixels).toBe(0);
  });

  it('A→now: takes a fresh pair of the same app and diffs against it', async () => {
    const r = await session.call('ax_visual_diff', { before: pairA.png });
    expect(r.isError, r.text).toBe(false);
    expect(r.structured.ratio as number).toBeGreaterThan(0);
    expect(r.fields.file).toMatch(/_visual_diff\.txt$/);
    expect(r.structured.diff_png).toBe(r.fields.file.replace(/\.txt$/, '.diff.png'));
    expect(fs.existsSync(r.structured.diff_png as string)).toBe(true);
    expect(fs.readFileSync(r.fields.file, 'utf8')).toMatch(/^# visual_diff: from /m);
  });

  it('refuses a pair outside the artifact directory', async () => {
    for (const before of [
      '/etc/passwd',
      '../../etc/hosts',
      `${os.tmpdir()}/1732000000000_click.png`,
    ]) {
      const r = await session.call('ax_visual_diff', { before });
      expect(r.isError, before).toBe(true);
      expect(r.text).toMatch(/not a pair in the artifact directory/);
    }
  });
});

describe('ax_visual_diff over a password field', () => {
  it('diffs the redacted screenshots: typing into the field shows no change inside it', async () => {
    const form = await session.launchFixture('form.py', [], {
      env: { AXPAGE_FIXTURE_SECRET: 'hunter2-visual' },
    });
    try {
      const a = await session.call('ax_get_tree', { app: form.pid });
      expect(a.isError, a.text).toBe(false);
      const lines = fs.readFileSync(a.fields.file, 'utf8').split('\n');
      const refOf = (id: string) =>
        / (e\d+) /.exec(lines.find((l) => l.includes(` id:${id}`)) ?? '')?.[1];
      const from = mark(form);
      const typed = await session.call('ax_type', { ref: refOf('password'), text: 'zz' });
      expect(typed.isError, typed.text).toBe(false);
      // The app's own report: the field's text did change.
      await form.output?.waitForEvent((e) => e.event === 'changed' && e.widget === 'password', {
        from,
      });
      const name = await session.call('ax_type', { ref: refOf('name'), text: 'Visible text' });
      expect(name.isError, name.text).toBe(false);
      const b = await session.call('ax_get_tree', { app: form.pid });
      const r = await session.call('ax_visual_diff', {
        before: a.fields.file,
        after: b.fields.file,
      });
      expect(r.isError, r.text).toBe(false);
      const regions = r.structured.regions as Frame[];
      const elements = visibleElements(b.fields.file);
      const field = (id: string) => {
        const line = fs
          .readFileSync(b.fields.file, 'utf8')
          .split('\n')
          .find((l) => l.includes(` id:${id}`));
        const ref = / (e\d+) /.exec(line ?? '')?.[1];
        const el = elements.find((e) => e.ref === ref);
        if (!el) throw new Error(`no visible ${id} field in ${b.fields.file}`);
        return el.frame;
      };
      expect(regions.some((reg) => overlaps(reg, field('name')))).toBe(true);
      const pw = field('password');
      const vp = viewportOf(b.fields.file);
      const diff = await raw(r.structured.diff_png as string);
      let red = 0;
      for (let y = pw.y + 2; y < pw.y + pw.h - 2; y++) {
        for (let x = pw.x + 2; x < pw.x + pw.w - 2; x++) {
          if (diff.at(x - vp.x, y - vp.y).join() === '255,0,0') red++;
        }
      }
      expect(red).toBe(0);
    } finally {
      await form.stop();
    }
  }, 120_000);
});

describe('ax_find_visual', () => {
  it('without sampling: a 0600 marks PNG with a box at each visible element, the legend in the tree file', async () => {
    const r = await session.call('ax_find_visual', { app: calc.pid, prompt: 'the 8 key' });
    expect(r.isError, r.text).toBe(false);
    expect(r.structured.sampling).toBe('unsupported');
    const marksPng = r.structured.marks_png as string;
    expect(marksPng).toBe(r.fields.file.replace(/\.txt$/, '.marks.png'));
    expect(mode(marksPng)).toBe(0o600);
    const text = fs.readFileSync(r.fields.file, 'utf8');
    const legend = text.slice(text.indexOf('\n# marks: ')).split('\n').slice(2);
    const vp = viewportOf(r.fields.file);
    const [marked, plain] = await Promise.all([raw(marksPng), raw(r.fields.screenshot)]);
    const elements = visibleElements(r.fields.file).filter(
      (e) =>
        e.frame.w > 0 &&
        e.frame.h > 0 &&
        e.frame.x < vp.x + marked.width &&
        e.frame.y < vp.y + marked.height &&
        e.frame.x + e.frame.w > vp.x &&
        e.frame.y + e.frame.h > vp.y,
    );
    expect(elements.length).toBeGreaterThan(20);
    for (const el of elements) {
      expect(
        legend.some((l) => new RegExp(`^\\d+ ${el.ref} `).test(l)),
        el.ref,
      ).toBe(true);
    }
    expect(r.structured.marks).toBe(elements.length);
    // Keys well inside the window: their left border is drawn in the mark colour.
    const keys = elements.filter((e) => /^[0-9]$/.test(e.text) && e.role !== 'AXTextArea');
    expect(keys.length).toBeGreaterThanOrEqual(5);
    for (const key of keys) {
      const x = key.frame.x - vp.x;
      const y = key.frame.y - vp.y + Math.floor(key.frame.h / 2);
      expect(marked.at(x, y), `${key.ref} "${key.text}"`).toEqual(MAGENTA);
      expect(plain.at(x, y)).not.toEqual(MAGENTA);
    }
  });

  it('with sampling: sends the marked image and legend, and names the element the model picked', async () => {
    let reply: (legend: string[]) => string = () => '0';
    const client = await startSamplingClient({
      env: {
        ...(session.desktop.processEnv() as Record<string, string>),
        AXPAGE_OUT: session.artifactDir,
      },
      answer: (ask) => {
        if (ask.texts.join('\n').includes('REFUSE')) throw new Error('the user declined');
        return reply(ask.texts.join('\n').split('\n'));
      },
    });
    try {
      // The stand-in model: the number of the legend line whose text is "8".
      reply = (lines) => {
        const line = lines.find((l) => /^\d+ e\d+ \S+ "8"$/.test(l));
        return line ? `It is ${line.split(' ')[0]}.` : '0';
      };
      const r = await client.call('ax_find_visual', { app: calc.pid, prompt: 'the 8 key' });
      expect(r.isError, r.text).toBe(false);
      const s = r.structured as { sampling: string; match?: { ref: string }; file: string };
      expect(s.sampling).toBe('answered');
      const eight = visibleElements(s.file).find((e) => e.text === '8' && e.role !== 'AXTextArea');
      expect(eight).toBeDefined();
      expect(s.match?.ref).toBe(eight?.ref);
      expect(r.text).toContain(eight?.ref);
      const ask = client.asks.at(-1)!;
      expect(ask.images).toHaveLength(1);
      const sent = await sharp(Buffer.from(ask.images[0].data, 'base64')).metadata();
      expect(sent.format).toBe('png');
      expect(ask.texts.join('\n')).toContain('the 8 key');

      reply = () => 'the blue one, probably';
      const garbage = await client.call('ax_find_visual', { app: calc.pid, prompt: 'the 9 key' });
      expect(garbage.isError, garbage.text).toBe(false);
      expect(garbage.structured.sampling).toBe('garbage');
      expect(garbage.structured.match).toBeUndefined();
      expect(fs.existsSync(garbage.structured.marks_png as string)).toBe(true);

      const refused = await client.call('ax_find_visual', { app: calc.pid, prompt: 'REFUSE' });
      expect(refused.isError, refused.text).toBe(false);
      expect(refused.structured.sampling).toBe('failed');
      expect(refused.text).toMatch(/gave no answer/);
    } finally {
      await client.close();
    }
  }, 120_000);
});
