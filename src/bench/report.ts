/** Markdown output for the benchmark: tables, number formats, guarded sections. */
import type { Stats } from './stats.js';

export const out = (line = ''): void => void process.stdout.write(`${line}\n`);

/** A number with sensible precision for ms figures: 0.042, 3.41, 27.3, 412. */
export function fmt(x: number | undefined, digits?: number): string {
  if (x === undefined || !Number.isFinite(x)) return '–';
  if (digits !== undefined) return x.toFixed(digits);
  const a = Math.abs(x);
  if (a === 0) return '0';
  if (a < 0.1) return x.toFixed(3);
  if (a < 10) return x.toFixed(2);
  if (a < 100) return x.toFixed(1);
  return x.toFixed(0);
}

/** "12.3x" — how many times the baseline's median is larger than ours. */
export function ratio(baseline: number | undefined, ours: number | undefined): string {
  if (baseline === undefined || ours === undefined || !(ours > 0) || !Number.isFinite(baseline)) {
    return '–';
  }
  return `${fmt(baseline / ours)}x`;
}

export function verdict(ok: boolean): string {
  return ok ? 'PASS' : 'MISS';
}

/** The standard timing columns: n, median, p90, min. */
export function statCells(s: Stats): string[] {
  return [String(s.n), fmt(s.median), fmt(s.p90), fmt(s.min)];
}

export const STAT_HEADERS = ['n', 'median ms', 'p90 ms', 'min ms'];

/** A markdown table with padded columns (readable raw, renders as a table too). */
export function table(headers: string[], rows: string[][]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    `| ${cells.map((c, i) => (c ?? '').padEnd(widths[i])).join(' | ')} |`;
  out(line(headers));
  out(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) out(line(r));
  out();
}

/** Runs one section; a failure prints the error and the run goes on. */
export async function section(title: string, fn: () => Promise<void>): Promise<boolean> {
  out(`## ${title}`);
  out();
  const t0 = performance.now();
  try {
    await fn();
    out(`_(section took ${((performance.now() - t0) / 1000).toFixed(1)} s)_`);
    out();
    return true;
  } catch (err) {
    const e = err as Error;
    out(`**section failed:** ${e?.message ?? String(err)}`);
    const stack = e?.stack?.split('\n').slice(1, 6).join('\n');
    if (stack) out(`\n\`\`\`\n${stack}\n\`\`\``);
    out();
    return false;
  }
}
