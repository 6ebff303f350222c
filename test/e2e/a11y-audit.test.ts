/**
 * ax_a11y_audit and ax_run_script end to end: `axpage serve` over stdio through the SDK
 * client, on a real headless desktop. The audit's findings are checked against what the
 * fixture app says it built (its ready line: widget sizes, CSS colours) and against
 * pyatspi's independent reading of the same app; galculator is a well-labelled real app.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Session } from '../../src/harness/session.js';
import type { LaunchedApp } from '../../src/desktop/apps.js';
import { contrastRatio } from '../../src/audit/index.js';
import { readApp } from './helpers/oracle.js';

let session: Session;
let fixture: LaunchedApp;
let ready: { sizes: Record<string, [number, number]>; colours: Record<string, string> };

beforeAll(async () => {
  session = await Session.start();
  await session.client.listTools(); // lets the client validate structured output
  fixture = await session.launchFixture('a11y_audit.py');
  const output = fixture.output;
  if (!output) throw new Error('the fixture has no piped stdout');
  ready = (await output.waitForEvent((e) => e.event === 'ready', {
    timeoutMs: 20_000,
  })) as unknown as typeof ready;
}, 120_000);

afterAll(async () => {
  await session?.close();
});

interface FindingLine {
  rule: string;
  ref: string;
  role: string;
  detail: string;
}

function findingsIn(text: string): FindingLine[] {
  return text
    .split('\n')
    .map((l) => /^! (\S+) (e\d+) \[(\w+)\] "(?:[^"\\]|\\.)*" (.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ rule: m[1], ref: m[2], role: m[3], detail: m[4] }));
}

/** The tree line of `ref` in a tree file's text. */
function treeLine(text: string, ref: string): string {
  const line = text
    .split('\n')
    .find((l) =>
      l.startsWith('[') || l.startsWith(' ')
        ? new RegExp(`\\] "(?:[^"\\\\]|\\\\.)*" ${ref} `).test(l)
        : false,
    );
  if (!line) throw new Error(`no tree line for ${ref}`);
  return line;
}

const hex = (h: string): [number, number, number] => [
  parseInt(h.slice(1, 3), 16),
  parseInt(h.slice(3, 5), 16),
  parseInt(h.slice(5, 7), 16),
];

describe('ax_a11y_audit on a fixture with known faults', () => {
  let text: string;
  let findings: FindingLine[];
  let structured: Record<string, unknown>;
  let summary: string;

  beforeAll(async () => {
    const r = await session.call('ax_a11y_audit', { app: fixture.pid });
    expect(r.isError, r.text).toBe(false);
    text = fs.readFileSync(r.fields.file, 'utf8');
    findings = findingsIn(text);
    structured = r.structured;
    summary = r.text;
  }, 60_000);

  it('reports each fault on the widget that has it (refs point at the fixture ids)', () => {
    const expected: Array<[string, string]> = [
      ['control-name', 'icon-button'],
      ['image-alt', 'lone-image'],
      ['keyboard', 'no-focus'],
      ['duplicate-name', 'open-2'],
      ['contrast', 'faint'],
      ['target-size', 'tiny'],
    ];
    for (const [rule, ident] of expected) {
      const hits = findings.filter((f) => f.rule === rule);
      expect(hits.length, `${rule} in\n${text}`).toBe(1);
      expect(treeLine(text, hits[0].ref), rule).toContain(` id:${ident}`);
    }
    // The sound widgets have no finding at all.
    for (const ident of ['save', 'clear', 'open-1']) {
      const refs = findings.map((f) => treeLine(text, f.ref));
      expect(
        refs.some((l) => l.includes(` id:${ident}`)),
        ident,
      ).toBe(false);
    }
  });

  it('agrees with pyatspi about the names and the focusable state', async () => {
    const atspi = await readApp(session, fixture.pid);
    const buttons = atspi.filter((e) => e.role === 'push button');
    // pyatspi too sees exactly one unnamed button, and "No focus" without the focusable state.
    expect(buttons.filter((b) => b.name === '').length).toBe(1);
    const noFocus = buttons.find((b) => b.name === 'No focus');
    expect(noFocus?.states).not.toContain('focusable');
    expect(buttons.find((b) => b.name === 'Save')?.states).toContain('focusable');
    // The tiny button's extents are what the target-size finding measured.
    const tiny = buttons.find((b) => b.name === 'Tiny');
    const detail = findings.find((f) => f.rule === 'target-size')?.detail ?? '';
    expect(detail).toContain(`${tiny?.extents?.[2]}x${tiny?.extents?.[3]} points`);
  });

  it('measures the tiny target as the app allocated it', () => {
    const [w, h] = ready.sizes.tiny;
    expect(w).toBeLessThan(24);
    const detail = findings.find((f) => f.rule === 'target-size')?.detail ?? '';
    expect(detail).toContain(`${w}x${h} points`);
  });

  it("estimates the faint label's contrast near the ratio of the colours the app set", () => {
    const detail = findings.find((f) => f.rule === 'contrast')?.detail ?? '';
    const ratio = Number(/~([\d.]+):1/.exec(detail)?.[1]);
    const truth = contrastRatio(hex(ready.colours.faint), hex(ready.colours.background));
    expect(Math.abs(ratio - truth), detail).toBeLessThan(0.3);
    expect(detail).toContain('(estimate)');
  });

  it('counts findings by rule in the summary and structuredContent, as the file lists them', () => {
    const counts = structured.findings as Record<string, number>;
    for (const [rule, n] of Object.entries(counts)) {
      expect(findings.filter((f) => f.rule === rule).length, rule).toBe(n);
      expect(summary).toContain(`${rule}: ${n} (`);
    }
    expect(structured.finding_count).toBe(findings.length);
    expect(text).toContain(`# findings: ${findings.length}`);
  });
});

describe('ax_a11y_audit arguments', () => {
  it('runs only the rules asked for', async () => {
    const r = await session.call('ax_a11y_audit', {
      app: fixture.pid,
      rules: ['contrast', 'target-size'],
    });
    expect(r.isError, r.text).toBe(false);
    const rules = new Set(findingsIn(fs.readFileSync(r.fields.file, 'utf8')).map((f) => f.rule));
    expect([...rules].sort()).toEqual(['contrast', 'target-size']);
    expect(Object.keys(r.structured.findings as object).sort()).toEqual([
      'contrast',
      'target-size',
    ]);
  });

  it('refuses an unknown rule and names the known ones', async () => {
    const r = await session.call('ax_a11y_audit', { app: fixture.pid, rules: ['colour'] });
    expect(r.isError).toBe(true);
    expect(r.text).toContain("unknown rule 'colour'");
    expect(r.text).toContain('control-name');
  });

  it('audits only below a scope ref', async () => {
    const full = await session.call('ax_a11y_audit', {
      app: fixture.pid,
      rules: ['duplicate-name', 'control-name'],
    });
    const fullText = fs.readFileSync(full.fields.file, 'utf8');
    const open = findingsIn(fullText).find((f) => f.rule === 'duplicate-name');
    // The row of the two Open buttons: the line just above the first of them.
    const lines = fullText.split('\n');
    const first = lines.findIndex((l) => l.includes(' id:open-1'));
    const row = / (e\d+) /.exec(lines[first - 1])?.[1];
    expect(row, lines[first - 1]).toBeDefined();
    const r = await session.call('ax_a11y_audit', {
      scope: row,
      rules: ['duplicate-name', 'control-name'],
    });
    expect(r.isError, r.text).toBe(false);
    const scoped = findingsIn(fs.readFileSync(r.fields.file, 'utf8'));
    // The unnamed icon button lies outside the row; the duplicate inside it.
    expect(scoped.map((f) => f.rule)).toEqual(['duplicate-name']);
    expect(scoped[0].ref).toBe(open?.ref);
  });
});

describe('ax_a11y_audit without screenshots', () => {
  it('runs every rule but contrast, and says why contrast was not checked', async () => {
    const other = await Session.start({ serverEnv: { AXPAGE_SCREENSHOTS: 'off' } });
    try {
      const app = await other.launchFixture('a11y_audit.py');
      const r = await other.call('ax_a11y_audit', { app: app.pid });
      expect(r.isError, r.text).toBe(false);
      const text = fs.readFileSync(r.fields.file, 'utf8');
      expect(text).toContain('# skipped: contrast (no screenshot to sample)');
      expect(findingsIn(text).some((f) => f.rule === 'contrast')).toBe(false);
      expect(findingsIn(text).some((f) => f.rule === 'control-name')).toBe(true);
      expect(r.structured.not_checked).toEqual({ contrast: 'no screenshot to sample' });
      expect(r.text).toContain('contrast: not checked');
    } finally {
      await other.close();
    }
  }, 90_000);
});

describe('ax_a11y_audit on galculator (a well-labelled app)', () => {
  it('finds no unnamed control among its labelled keys', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'axpage-galculator-'));
    const calc = await session.launch('galculator', [], { env: { HOME: home } });
    try {
      const r = await session.call('ax_a11y_audit', { app: calc.pid });
      expect(r.isError, r.text).toBe(false);
      const text = fs.readFileSync(r.fields.file, 'utf8');
      // The keys are there (audited), each with its label as its name...
      const keys = text.split('\n').filter((l) => /\[AX\w+ \(toggle button\)\] "[^"]+"/.test(l));
      expect(keys.length, text.slice(0, 3000)).toBeGreaterThan(15);
      const atspi = await readApp(session, calc.pid);
      const named = atspi.filter((e) => e.role === 'toggle button' && e.name !== '');
      expect(named.length).toBeGreaterThan(15);
      // ...and no control-name finding is on any button (its display, a text area
      // without a name, may have one: that is a true finding).
      const unnamed = findingsIn(text).filter((f) => f.rule === 'control-name');
      for (const f of unnamed)
        expect(treeLine(text, f.ref)).not.toMatch(/ \((toggle|push) button\)\]/);
      expect(
        atspi.filter((e) => /^(toggle|push) button$/.test(e.role) && e.name === '').length,
      ).toBe(0);
    } finally {
      await calc.stop();
      fs.rmSync(home, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('ax_run_script on Linux', () => {
  it('is listed in full mode and every call is an error that says why', async () => {
    const names = (await session.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('ax_run_script');
    const r = await session.call('ax_run_script', {
      script: 'tell application "System Events" to get name of processes',
      language: 'applescript',
    });
    expect(r.isError).toBe(true);
    expect(r.text).toContain(
      'unavailable on Linux: there is no native accessibility scripting facility like AppleScript/JXA; use ax_workflow or the ax_* tools',
    );
    expect(r.structured.error_code).toBe('unsupported');
  });

  it.each(['safe', 'read-only'])(
    'is not listed (nor callable) by a server in %s mode',
    async (mode) => {
      const other = await Session.start({ serverEnv: { AXPAGE_MODE: mode } });
      try {
        const names = (await other.client.listTools()).tools.map((t) => t.name);
        expect(names).toContain('ax_a11y_audit');
        expect(names).not.toContain('ax_run_script');
        const r = await other.call('ax_run_script', { script: 'x', language: 'jxa' });
        expect(r.isError).toBe(true);
        expect(r.text).not.toContain('unavailable on Linux');
      } finally {
        await other.close();
      }
    },
    90_000,
  );
});
